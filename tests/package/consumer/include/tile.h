// The tile width comes from the build (-DTILE=...): a missing definition fails the PTX's
// compilation too, so the test knows the PTX saw the target's definitions and include folders.
#ifndef TILE
#error "TILE is not defined"
#endif
