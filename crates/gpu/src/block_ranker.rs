//! The GPU ranking a file streamed a block of items at a time (`conformal::streamed`, whose
//! `BlockRanker` it is): nonparametric ranks, and for pooled CP_r the positions of a block's test
//! items: a split's calibration units come as the core's sorted tables ([`PooledSplit`]), its test
//! items as a block of the file, never the whole file. The GPU finds the candidates' positions
//! among the units, the CPU runs the greedy on them, as for a tensor held whole.

use super::cpu::{self, PooledCal, PooledShape};
use super::keys::{all_f32, Keys};
use rvalue_core::rvalue::pooled::{PooledItem, PooledSplit, Workspace};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

/// The positions kernel's inputs for a block's test items: their keys, one item after another
/// (`local` indexes them), the items' tie orders, and the shape of the split's units, whose
/// keys ([`PooledCal::draws_of_split`]) are made a group of draws at a time.
pub struct BlockInputs {
    pub keys: Keys,
    pub local: Vec<u32>,
    pub orders: Vec<u32>,
    pub shape: PooledShape,
}

impl BlockInputs {
    /// The inputs for `block`'s items `items` (item `i` keyed as item `key + i`) against `ps`:
    /// one key word a score when the units' and the items' scores are all f32, else two, so the
    /// kernel ranks them exactly as the core does.
    pub fn new(ps: &PooledSplit, block: &ScoreTensor, items: &[usize], key: usize) -> Result<BlockInputs> {
        if (block.m(), block.k()) != (ps.m(), ps.k()) {
            return Err(Error::shape(format!(
                "a block of {} draws × {} candidates against units of {} draws and {} candidates",
                block.m(),
                block.k(),
                ps.m(),
                ps.k()
            )));
        }
        if let Some(&i) = items.iter().find(|&&i| i >= block.n()) {
            return Err(Error::invalid(format!("test item {i} of a block of {} items", block.n())));
        }
        let units_f32 = (0..ps.m()).all(|d| all_f32(ps.calibration_order(d).0));
        let words = if units_f32 && Keys::items_are_f32(block, items) { 1 } else { 2 };
        Ok(BlockInputs {
            keys: Keys::of_items(block, items, words),
            local: (0..items.len() as u32).collect(),
            shape: PooledShape { n: ps.n_cal(), m: ps.m(), k: ps.k(), words },
            orders: cpu::tie_orders_keyed(ps, items.iter().map(|&i| ps.ties().item_key(block, i, key + i))),
        })
    }
}

/// The core's greedy on positions `[B][M][K]` of `block`'s test items `items` (keyed from `key`),
/// on up to `threads` threads; positions a device got wrong are a GPU error.
pub fn block_greedy(
    ps: &PooledSplit,
    pos: &[u32],
    block: &ScoreTensor,
    items: &[usize],
    key: usize,
    threads: usize,
) -> Result<Vec<PooledItem>> {
    let mk = ps.m() * ps.k();
    if pos.len() != items.len() * mk {
        return Err(Error::gpu(format!("{} positions for {} test items of {mk}", pos.len(), items.len())));
    }
    rvalue_core::conformal::in_chunks(items.len(), threads, |range| {
        let mut work = Workspace::default();
        range
            .map(|b| {
                let p = &pos[b * mk..(b + 1) * mk];
                let item = ps.ties().item_key(block, items[b], key + items[b]);
                ps.item_from_positions(item, p, &mut work).map_err(|e| Error::gpu(e.to_string()))
            })
            .collect()
    })
}

/// The CPU twin of [`pooled_block_items`]: the same positions from [`cpu::pooled_positions`].
pub fn pooled_block_items_cpu(
    ps: &PooledSplit,
    block: &ScoreTensor,
    items: &[usize],
    key: usize,
    threads: usize,
) -> Result<Vec<PooledItem>> {
    let inputs = BlockInputs::new(ps, block, items, key)?;
    let cal = PooledCal::of_split(ps, inputs.shape.words);
    let pos = cpu::pooled_positions(&inputs.keys, &cal, &inputs.local, &inputs.orders);
    block_greedy(ps, &pos, block, items, key, threads)
}

/// Positions `[B][M][K]` of `block`'s test items `items` (keyed from `key`) among `ps`' units
/// and their own candidates, from the GPU.
#[cfg(feature = "gpu")]
pub async fn pooled_block_positions_async(
    gpu: &super::Gpu,
    ps: &PooledSplit,
    block: &ScoreTensor,
    items: &[usize],
    key: usize,
) -> Result<Vec<u32>> {
    let inputs = BlockInputs::new(ps, block, items, key)?;
    let cal_of = |draws| PooledCal::draws_of_split(ps, inputs.shape.words, draws);
    gpu.pooled_positions_by_draws(&inputs.keys, inputs.shape, &inputs.local, &inputs.orders, cal_of).await
}

/// Pooled CP_r's greedy results for `block`'s test items `items` (item `i` keyed as `key + i`)
/// against `ps`, the positions from the GPU and the greedy on `threads` threads: equal to
/// `ps.items_at(block, items, key, ..)`.
#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
pub fn pooled_block_items(
    gpu: &super::Gpu,
    ps: &PooledSplit,
    block: &ScoreTensor,
    items: &[usize],
    key: usize,
    threads: usize,
) -> Result<Vec<PooledItem>> {
    let pos = super::block_on(pooled_block_positions_async(gpu, ps, block, items, key))??;
    block_greedy(ps, &pos, block, items, key, threads)
}

/// The GPU ranks a streamed file's blocks: nonparametric r-values and pooled positions. Every
/// failure is an `Error::Gpu`; the caller decides whether the CPU takes over.
#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
impl rvalue_core::conformal::streamed::BlockRanker for super::Gpu {
    fn nonparametric(&self, block: &ScoreTensor) -> Result<Option<Vec<f64>>> {
        super::nonparametric_rvalues(self, block, &Keys::of_tensor(block)).map(Some)
    }

    fn pooled(
        &self,
        split: &PooledSplit,
        block: &ScoreTensor,
        items: &[usize],
        key: usize,
        threads: usize,
    ) -> Result<Option<Vec<PooledItem>>> {
        pooled_block_items(self, split, block, items, key, threads).map(Some)
    }
}

/// Without the `gpu` feature no `Gpu` exists, so this is never called.
#[cfg(not(feature = "gpu"))]
pub fn pooled_block_items(
    gpu: &super::Gpu,
    _: &PooledSplit,
    _: &ScoreTensor,
    _: &[usize],
    _: usize,
    _: usize,
) -> Result<Vec<PooledItem>> {
    match *gpu {}
}

#[cfg(all(test, not(target_arch = "wasm32"), feature = "gpu"))]
mod tests;
