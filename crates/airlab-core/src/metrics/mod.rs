//! What a run reports: sampled time series (the recorder), the summary of the measurement
//! window and its physical invariants, batch means, warnings, and the column definitions. It
//! reads the models' counts ([`crate::counters`]) through [`view::RunView`].

pub mod batches;
pub mod columns;
pub mod invariants;
pub mod recorder;
pub mod series;
pub mod summary;
pub mod view;
pub mod warnings;
