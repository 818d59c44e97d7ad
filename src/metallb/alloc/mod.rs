//! MetalLB's controller replayed offline: which IP a Service gets, from which pool, or why it
//! stays `<pending>` (controller spec). The allocator and controller are faithful ports; `replay`
//! runs them over a whole snapshot the way the controller does after a restart.

pub mod allocator;
pub mod controller;
pub(crate) mod error;
pub mod family;
pub mod pools;
pub(crate) mod replay;
pub mod svc;
