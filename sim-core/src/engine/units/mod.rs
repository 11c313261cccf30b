//! The machine's units that own their state: the command processors, the transfer engine and
//! the compute units' dispatcher. Each holds what it alone decides (its queue of work, its clock, its random
//! stream); the event loop in [`crate::engine::run`] hands it the machine and tells observers
//! what it did.

pub mod compute;
pub mod cp;
pub mod host;
pub mod transfer;
