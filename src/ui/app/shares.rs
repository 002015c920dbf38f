//! A streamed file's shares the page reads itself (beside its workers): the job names one, the
//! page reads its bytes (`File.slice`, or a Range request) between frames and hands them in; the job scores them
//! a few items a step.

use wasm_bindgen_futures::spawn_local;

use super::frame::with;
use super::App;
use crate::ui::dom;
use rvalue_model::message::about;
use rvalue_web::streamed::Streamed;

impl App {
    /// Starts reading the share of `file` the running job wants next, if any.
    pub(super) fn read_own_share(&mut self, file: Streamed) {
        let Some(run) = self.compute.jobs_mut().running_mut() else { return };
        if run.job().streamed().is_none_or(|s| !std::sync::Arc::ptr_eq(s, &file.info)) {
            return;
        }
        let Some((s, range)) = run.job_mut().wants_bytes() else { return };
        dom::mark(dom::SHARE_READ);
        let (serial, me) = (run.serial(), self.me.clone());
        spawn_local(async move {
            let got = file.file.read(range).await;
            let Some(app) = me.upgrade() else { return };
            with(&app, |a| {
                // A share of a job since replaced or cancelled: dropped.
                let Some(run) = a.compute.jobs_mut().running_serial(serial) else {
                    return dom::mark(dom::DROPPED_ANSWER);
                };
                if let Err(e) = got.and_then(|b| run.job_mut().supply_bytes(s, b)) {
                    a.fail_running(&about(&file.info.name, &e));
                }
            });
        });
    }
}
