{{/* Adam's and AdamW's update of one element (see update.wgsl), reading
and writing g and p: AdamW's decoupled decay is u.decay (1 for Adam),
Adam's L2 penalty u.l2 (0 for AdamW); with the max_exp_avg_sq slot
(.max_exp_avg_sq), AMSGrad. The uniform u holds the hyperparameters of
adamKernel's members. */ -}}
if (u.decay != 1.0f) { p = p * u.decay; }
if (u.l2 != 0.0f) { g = g + u.l2 * p; }
let m = exp_avg[i] + (1.0f - u.beta1) * (g - exp_avg[i]);
var v = u.beta2 * exp_avg_sq[i] + (1.0f - u.beta2) * g * g;
exp_avg[i] = m;
exp_avg_sq[i] = v;
{{- if .max_exp_avg_sq}}
v = max(max_exp_avg_sq[i], v);
max_exp_avg_sq[i] = v;
{{- end}}
p = p - u.step_size * (m / (sqrt(v) / u.bc2_sqrt + u.eps));
