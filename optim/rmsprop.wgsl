{{/* RMSProp's update of one element (see update.wgsl), reading and
writing g and p: centered with the grad_avg slot (.grad_avg), with
momentum with the momentum_buffer slot (.momentum_buffer). The uniform u
holds the hyperparameters of rmspropKernel's members. */ -}}
if (u.wd != 0.0f) { g = g + u.wd * p; }
let s = u.alpha * square_avg[i] + (1.0f - u.alpha) * g * g;
square_avg[i] = s;
{{- if .grad_avg}}
let ga = grad_avg[i] + (1.0f - u.alpha) * (g - grad_avg[i]);
grad_avg[i] = ga;
let avg = sqrt(s - ga * ga) + u.eps;
{{- else}}
let avg = sqrt(s) + u.eps;
{{- end}}
{{- if .momentum_buffer}}
let b = u.momentum * momentum_buffer[i] + g / avg;
momentum_buffer[i] = b;
p = p - u.lr * b;
{{- else}}
p = p - u.lr * (g / avg);
{{- end}}
