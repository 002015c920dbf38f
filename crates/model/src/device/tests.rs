use super::*;

type Dev = Device<&'static str>;

fn supplied(job: &mut JobGpu<u8>, device: &mut Dev, serial: u64, x: u32, out: &mut Vec<u32>) -> bool {
    job.take(device, serial, Ok(x), |x| {
        out.push(x);
        Ok(())
    })
}

/// A GPU answer that arrives after its job was replaced (cancel, or a new setting) must not
/// reach the new job, even when the new job waits for an answer of the same shape.
#[test]
fn an_answer_for_a_replaced_job_is_dropped() {
    let mut device = Dev::new();
    let old: JobGpu<u8> = device.new_job();
    let mut job: JobGpu<u8> = device.new_job();
    job.call();
    let mut out = Vec::new();
    assert!(!supplied(&mut job, &mut device, old.serial(), 1, &mut out));
    assert!(out.is_empty() && job.progress().is_some());
    let serial = job.serial();
    assert!(supplied(&mut job, &mut device, serial, 2, &mut out));
    assert_eq!(out, [2]);
    assert_eq!((job.progress(), device.note(&job)), (None, "; CP_r's ranks on the GPU"));
    // An answer when no call is under way is not taken.
    assert!(!supplied(&mut job, &mut device, serial, 3, &mut out));
    // An answer the job refuses sends it to the CPU and says why.
    job.call();
    assert!(job.take(&mut device, job.serial(), Ok(3), |_| Err(Error::invalid("stale"))));
    assert_eq!(device.note(&job), "; GPU failed, CP_r on the CPU");
    assert!(device.describe().0.ends_with(". GPU failed: stale; using CPU"), "{:?}", device.describe());
}

#[test]
fn a_job_waits_for_its_call_and_leaves_the_gpu_once_it_failed() {
    let mut device = Dev::new();
    let mut job: JobGpu<u8> = device.new_job();
    assert_eq!(job.step(&device), GpuStep::Cpu);
    let adapter = Adapter { name: "Lavapipe".into(), backend: "Vulkan".into(), software: true };
    device.opened(DeviceState::Gpu("gpu", adapter));
    assert_eq!((job.step(&device), device.gpu()), (GpuStep::Ask, Some(&"gpu")));
    let done = job.call();
    done.set(0.5);
    assert_eq!((job.step(&device), job.progress()), (GpuStep::Wait, Some(0.5)));
    let serial = job.serial();
    assert!(job.take(&mut device, serial, Err::<(), _>(Error::gpu("lost")), |_| Ok(())));
    assert_eq!(job.step(&device), GpuStep::Cpu);
    // A new job tries the GPU again, and a success clears the failure shown.
    let mut next: JobGpu<u8> = device.new_job();
    assert_eq!(next.step(&device), GpuStep::Ask);
    next.call();
    assert!(next.take(&mut device, next.serial(), Ok(()), |_| Ok(())));
    assert_eq!(device.describe(), ("GPU: Lavapipe (Vulkan, software)".to_string(), String::new()));
}

#[test]
fn a_part_s_keys_are_made_once() {
    let mut job: JobGpu<u32> = Dev::new().new_job();
    let mut made = 0;
    for (part, want) in [(0, 1), (0, 1), (1, 2), (1, 2), (0, 3)] {
        let k = job.keys_for(part, || {
            made += 1;
            made
        });
        assert_eq!(k, want);
    }
}

#[test]
fn the_compute_line_says_why_there_is_no_gpu() {
    let mut device = Dev::later(Some("off".into()));
    assert_eq!(device.describe().0, "CPU");
    assert_eq!(device.open_now(), Some(Some("off".to_string())));
    assert_eq!((device.open_now(), device.describe().0.as_str()), (None, "CPU (looking for a GPU…)"));
    device.opened(DeviceState::Cpu("no GPU adapter was found".into()));
    assert_eq!(device.describe(), ("CPU".to_string(), "no GPU adapter was found".to_string()));
    device.opened(DeviceState::Cpu("the shader did not compile".into()));
    let (text, title) = device.describe();
    assert_eq!(text, "CPU (GPU failed: the shader did not compile)");
    assert_eq!(title, "the shader did not compile");
    assert_eq!(device.open_now(), None);
}

#[test]
fn the_gpu_switch_reads_its_three_values() {
    assert_eq!(GpuSwitch::of(None), GpuSwitch::default());
    assert!(GpuSwitch::of(Some("off")).no_adapter);
    assert!(GpuSwitch::of(Some("bad-shader")).bad_shader);
    let lost = GpuSwitch::of(Some("lost"));
    assert!(lost.lost && !lost.no_adapter && !lost.bad_shader);
    assert_eq!(GpuSwitch::of(Some("on")), GpuSwitch::default());
}
