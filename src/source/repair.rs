//! Repairing Source demos whose recorder never finished (being written by a helper).
