//! sim-core (in progress).
