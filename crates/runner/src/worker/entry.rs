//! A worker thread from start to end: its engine built from the job (buffers, fill, the
//! files it registers, locking), the replay or record it opens, the start gate every
//! worker of the job waits at, then the IO loop ([`Worker::run`]) and fio's
//! `exec_prerun`/`exec_postrun` around it.

use super::{control, Worker, WorkerContext, WorkerOutcome};
use crate::clock::TscClock;
use crate::prepare::engine_choice;
use crate::RunError;
use diskmeter_engine::{BufferFill, EngineConfig, IoEngine};
use diskmeter_stats::WorkerStats;
use std::sync::atomic::Ordering;

/// Runs one worker to completion. Setup errors are returned after the start gate has
/// opened, so siblings are never left waiting; when the gate is cancelled (a sibling thread
/// could not be started) the worker does nothing.
pub fn run_worker(mut ctx: WorkerContext<'_>) -> WorkerOutcome {
    // Counted in its flow group before the gate opens, whenever this thread gets there.
    let _flow = control::FlowMembership::join(ctx.job, ctx.links.flow.as_ref());
    let iolog = ctx.iolog.take();
    let (engine, _locked) = crate::buffer_contents::with_lockmem(ctx.job, || build_engine(&ctx));
    let opened = crate::exec::prerun(ctx.job).and_then(|()| {
        crate::replay::open_for_worker(ctx.job, ctx.targets.iter().map(|(_, t)| t.path.as_path()))
    });
    let (replay, recorder) = match opened {
        Ok(opened) => opened,
        Err(error) => {
            // The gate still opens for the siblings; this worker does nothing.
            ctx.start.wait();
            ctx.abort.store(true, Ordering::Relaxed);
            return WorkerOutcome {
                stats: WorkerStats::new(),
                error: Some(error),
            };
        }
    };
    let opened = ctx.start.wait();
    let mut engine = match engine {
        Ok(engine) if opened => engine,
        Ok(_) => {
            return WorkerOutcome {
                stats: WorkerStats::new(),
                error: None,
            }
        }
        Err(error) => {
            ctx.abort.store(true, Ordering::Relaxed);
            return WorkerOutcome {
                stats: WorkerStats::new(),
                error: Some(error),
            };
        }
    };
    let mut outcome = Worker::new(&ctx, engine.as_mut(), TscClock, iolog)
        .with_replay(replay)
        .with_recorder(recorder)
        .run();
    if let Err(error) = crate::exec::postrun(ctx.job) {
        outcome.error.get_or_insert(error);
    }
    ctx.links.finished();
    if outcome.error.is_some() && ctx.job.control.exitall_on_error {
        // fio's exitall_on_error: this job's failure ends every other job.
        ctx.abort.store(true, Ordering::Relaxed);
    }
    outcome
}

fn build_engine(ctx: &WorkerContext<'_>) -> Result<Box<dyn IoEngine>, RunError> {
    crate::placement::apply(&ctx.plan.placement, &ctx.job.name)?;
    let config = EngineConfig {
        choice: engine_choice(ctx.job.ioengine),
        iodepth: ctx.plan.iodepth,
        buffer_len_bytes: ctx.job.max_bs_bytes() as usize,
        buffer_align_bytes: ctx.buffer_align_bytes,
        fds: ctx.targets.iter().map(|(fd, _)| *fd).collect(),
        fixed_buffers: ctx.job.fixedbufs,
        register_files: ctx.job.registerfiles,
        fill: match (ctx.job.zero_buffers, ctx.job.buffer_compress_percentage) {
            (true, _) => BufferFill::Zero,
            (false, Some(zero_percent)) => BufferFill::Compressible {
                zero_percent,
                chunk_bytes: u32::try_from(ctx.job.buffer_compress_chunk_bytes).unwrap_or(u32::MAX),
            },
            (false, None) => BufferFill::Random,
        },
        seed: ctx.plan.seed,
        tuning: crate::engine_options::tuning(ctx.job),
    };
    diskmeter_engine::open_engine(&config)
        .map(|engine| crate::file_lock::LockingEngine::for_job(engine, ctx.job, &ctx.targets))
        .map_err(|source| RunError::Engine {
            job: ctx.job.name.clone(),
            source,
        })
}
