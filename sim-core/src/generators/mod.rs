//! Program generators and the table checker built on them: [`random`] correctly synchronized
//! programs (what `gpusim profile check` and the property tests run), [`samples`] (built-in
//! workloads with real traffic, for benchmarks and the demo) and [`soundness`] (random programs
//! run against a profile's barrier table, the failing one shrunk). They build workloads through
//! [`crate::api`] and run them through [`crate::engine`]; the engine never imports them.

pub mod random;
pub mod samples;
pub mod soundness;
