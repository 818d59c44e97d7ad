//! Pieces made in parallel and written in order, a bounded number ahead of the writing.
//!
//! A large `-o json` laid out a batch of Services on both cores, then wrote it, then laid out the
//! next: every batch ended in a barrier where one core waited for the other's last Service, and
//! the writing (the kernel copying 27 MB into the page cache) ran while both waited. Here each
//! core takes the next piece as soon as it is done with one, and the writing thread writes each
//! piece once the ones before it are written. Memory stays bounded: no piece is begun more than
//! `ahead` places past the one being written.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

struct Ring<T, E> {
    /// Slot `i % ahead` holds piece `i` once it is made, until it is written.
    slots: Vec<Option<Result<T, E>>>,
    /// The pieces written so far.
    written: usize,
    /// The writing failed, or a thread panicked: nothing more is made or waited for.
    stopped: bool,
}

/// Stops the pieces when the thread holding it unwinds: the others would otherwise wait for a
/// piece or a place that never comes, and the scope, which re-raises the panic once every thread
/// has returned, would never end.
struct StopOnPanic<'a, T, E> {
    ring: &'a Mutex<Ring<T, E>>,
    wake: [&'a Condvar; 2],
}

impl<T, E> Drop for StopOnPanic<'_, T, E> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.ring.lock().unwrap_or_else(|e| e.into_inner()).stopped = true;
            self.wake.iter().for_each(|cv| cv.notify_all());
        }
    }
}

/// `write(make(i))` for every `i` in `0..count`, in order, on this thread; `make` runs on the
/// rayon pool. The first error, of either, is returned; pieces after it are neither made nor
/// written (some may be made already).
pub fn write_ordered<T: Send, E: Send>(
    count: usize,
    ahead: usize,
    make: impl Fn(usize) -> Result<T, E> + Sync,
    mut write: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    // On a worker of the pool, this thread waiting for a piece could be the one that was to
    // make it: one piece at a time then.
    if rayon::current_thread_index().is_some() || rayon::current_num_threads() < 2 {
        return (0..count).try_for_each(|i| make(i).and_then(&mut write));
    }
    let ahead = ahead.max(1);
    let ring = Mutex::new(Ring { slots: (0..ahead).map(|_| None).collect(), written: 0, stopped: false });
    let (made, room) = (Condvar::new(), Condvar::new());
    let next = AtomicUsize::new(0);
    let lock = || ring.lock().unwrap_or_else(|e| e.into_inner());
    rayon::in_place_scope(|scope| {
        for _ in 0..rayon::current_num_threads().min(count) {
            scope.spawn(|_| loop {
                let _stop = StopOnPanic { ring: &ring, wake: [&made, &room] };
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    return;
                }
                let mut g = lock();
                while !g.stopped && i >= g.written + ahead {
                    g = wait(&room, g);
                }
                if g.stopped {
                    return;
                }
                drop(g);
                let piece = make(i);
                lock().slots[i % ahead] = Some(piece);
                made.notify_all();
            });
        }
        let _stop = StopOnPanic { ring: &ring, wake: [&made, &room] };
        let mut result = Ok(());
        for i in 0..count {
            let mut g = lock();
            let piece = loop {
                if let Some(piece) = g.slots[i % ahead].take() {
                    break piece;
                }
                // A maker panicked: the scope re-raises its panic.
                if g.stopped {
                    return result;
                }
                g = wait(&made, g);
            };
            g.written = i + 1;
            drop(g);
            room.notify_all();
            if let Err(e) = piece.and_then(&mut write) {
                result = Err(e);
                break;
            }
        }
        if result.is_err() {
            lock().stopped = true;
            room.notify_all();
        }
        result
    })
}

fn wait<'a, X>(cv: &Condvar, g: MutexGuard<'a, X>) -> MutexGuard<'a, X> {
    cv.wait(g).unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_piece_in_order() {
        for (count, ahead) in [(0, 4), (1, 1), (7, 1), (100, 3), (1000, 16)] {
            let mut out = Vec::new();
            let r: Result<(), ()> = write_ordered(
                count,
                ahead,
                |i| Ok(i * 2),
                |x| {
                    out.push(x);
                    Ok(())
                },
            );
            assert!(r.is_ok());
            assert_eq!(out, (0..count).map(|i| i * 2).collect::<Vec<_>>(), "{count} pieces, {ahead} ahead");
        }
    }

    /// A panic while making or writing is the caller's panic, not a wait that never ends.
    #[test]
    fn a_panic_on_either_side_reaches_the_caller() {
        let made = std::panic::catch_unwind(|| {
            write_ordered(1000, 4, |i| if i == 30 { panic!("piece 30") } else { Ok::<usize, ()>(i) }, |_| Ok(()))
        });
        assert!(made.is_err());
        let written = std::panic::catch_unwind(|| {
            write_ordered(1000, 4, Ok::<usize, ()>, |i| if i == 30 { panic!("writing 30") } else { Ok(()) })
        });
        assert!(written.is_err());
    }

    #[test]
    fn on_a_worker_of_the_pool_it_makes_one_at_a_time() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let out = pool.install(|| {
            let mut out = Vec::new();
            write_ordered(50, 4, Ok::<usize, ()>, |x| {
                out.push(x);
                Ok(())
            })
            .map(|()| out)
        });
        assert_eq!(out, Ok((0..50).collect()));
    }

    #[test]
    fn never_makes_a_piece_more_than_ahead_of_the_writing() {
        let written = AtomicUsize::new(0);
        let r: Result<(), String> = write_ordered(
            500,
            4,
            |i| {
                let w = written.load(Ordering::SeqCst);
                // The piece being written counts as written: its place is free.
                if i > w + 4 {
                    return Err(format!("piece {i} begun with {w} written"));
                }
                Ok(i)
            },
            |_| {
                written.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        assert_eq!(r, Ok(()));
    }

    #[test]
    fn the_first_error_stops_the_rest() {
        let made = AtomicUsize::new(0);
        let mut out = Vec::new();
        let r = write_ordered(
            10_000,
            8,
            |i| {
                made.fetch_add(1, Ordering::SeqCst);
                if i == 30 {
                    Err("bad piece")
                } else {
                    Ok(i)
                }
            },
            |x| {
                out.push(x);
                Ok(())
            },
        );
        assert_eq!(r, Err("bad piece"));
        assert_eq!(out, (0..30).collect::<Vec<_>>());
        assert!(made.load(Ordering::SeqCst) <= 31 + 8, "made {} pieces", made.load(Ordering::SeqCst));

        let r = write_ordered(10_000, 8, Ok::<usize, &str>, |x| if x == 99 { Err("full") } else { Ok(()) });
        assert_eq!(r, Err("full"));
    }
}
