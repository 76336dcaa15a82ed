package tensor

// ForceAttentionRows makes every attention kernel take rows rows a thread
// (1, 2 or 4), whatever the device; 0 restores the choice by device.
func ForceAttentionRows(rows int) { attentionRowsForced = rows }
