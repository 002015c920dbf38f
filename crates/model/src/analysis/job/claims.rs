//! Who computes each piece of a list of work (toy repeats, a score file's pooled splits): the
//! job, another thread it handed the piece to, or nobody yet.

/// Who computes a piece of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::analysis) enum Claim {
    Free,
    /// The job itself (the piece it is at, or one it finished).
    Job,
    /// Handed out to another thread ([`AnalysisJob::hand_out`](super::AnalysisJob::hand_out)).
    Out,
}

/// Claims of a list of pieces of work, in order.
#[derive(Debug, Clone, Default)]
pub(in crate::analysis) struct Claims(Vec<Claim>);

impl Claims {
    /// `n` pieces nobody computes yet, but the first when `first_job`.
    pub(in crate::analysis) fn new(n: usize, first_job: bool) -> Self {
        Claims((0..n).map(|p| if p == 0 && first_job { Claim::Job } else { Claim::Free }).collect())
    }

    pub(in crate::analysis) fn len(&self) -> usize {
        self.0.len()
    }

    pub(in crate::analysis) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Piece `i`'s claim (`None` beyond the list).
    pub(in crate::analysis) fn get(&self, i: usize) -> Option<Claim> {
        self.0.get(i).copied()
    }

    pub(in crate::analysis) fn set(&mut self, i: usize, claim: Claim) {
        if let Some(c) = self.0.get_mut(i) {
            *c = claim;
        }
    }

    /// The first piece nobody computes.
    pub(in crate::analysis) fn first_free(&self) -> Option<usize> {
        self.0.iter().position(|&c| c == Claim::Free)
    }

    /// Hands the first free piece but the first (the job's) out.
    pub(in crate::analysis) fn hand_out(&mut self) -> Option<usize> {
        let p = (1..self.0.len()).find(|&p| self.0[p] == Claim::Free)?;
        self.0[p] = Claim::Out;
        Some(p)
    }

    /// Hands the first free group of `group` pieces (groups start at multiples of `group`) out:
    /// its pieces.
    pub(in crate::analysis) fn hand_out_group(&mut self, group: usize) -> Option<std::ops::Range<usize>> {
        let first = (0..self.0.len()).step_by(group).find(|&r| self.0[r] == Claim::Free)?;
        let end = (first + group).min(self.0.len());
        self.0[first..end].iter_mut().for_each(|c| *c = Claim::Out);
        Some(first..end)
    }

    /// Whether every piece of `pieces` is handed out (`false` beyond the list).
    pub(in crate::analysis) fn all_out(&self, pieces: std::ops::Range<usize>) -> bool {
        self.0.get(pieces).is_some_and(|c| c.iter().all(|&c| c == Claim::Out))
    }

    /// Frees the pieces of `pieces` that are handed out (their thread failed).
    pub(in crate::analysis) fn hand_back_all(&mut self, pieces: std::ops::Range<usize>) {
        for c in self.0.get_mut(pieces).into_iter().flatten() {
            if *c == Claim::Out {
                *c = Claim::Free;
            }
        }
    }

    /// Frees piece `i` if it is handed out; whether it was.
    pub(in crate::analysis) fn hand_back(&mut self, i: usize) -> bool {
        match self.0.get_mut(i) {
            Some(c @ Claim::Out) => {
                *c = Claim::Free;
                true
            }
            _ => false,
        }
    }

    /// Pieces handed out and not back yet.
    pub(in crate::analysis) fn out(&self) -> usize {
        self.0.iter().filter(|&&c| c == Claim::Out).count()
    }

    /// Whether the job holds every piece (each computed, or being computed by it).
    pub(in crate::analysis) fn all_job(&self) -> bool {
        self.0.iter().all(|&c| c == Claim::Job)
    }
}
