{{/* SGD's update of one element (see update.wgsl), reading and writing g
and p; with the momentum_buffer slot (.momentum_buffer), momentum. The
uniform u holds the hyperparameters of sgdKernel's members. */ -}}
if (u.wd != 0.0f) { g = g + u.wd * p; }
{{- if .momentum_buffer}}
var b = momentum_buffer[i];
if (u.fresh != 0.0f) { b = g; } else { b = u.momentum * b + (1.0f - u.dampening) * g; }
momentum_buffer[i] = b;
if (u.nesterov != 0.0f) { g = g + u.momentum * b; } else { g = b; }
{{- end}}
p = p - u.lr * g;
