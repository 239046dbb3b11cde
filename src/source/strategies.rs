//! proptest strategies for Source demos (being written by a helper).
