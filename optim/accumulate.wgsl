{{/* The Accumulator's update of one element (see update.wgsl): the
gradient g added into the buffer p, or with overwrite written there. */ -}}
if (u.overwrite != 0.0f) { p = g; } else { p = p + g; }
