#!/usr/bin/env python3
"""Writes torch_pool.json: PyTorch's max_pool2d and avg_pool2d, and their
gradients, over cases that exercise ceil_mode, count_include_pad and
dilation, for tensor/pool_options_test.go to compare against.

Run from this directory with PyTorch installed (the values were made with
torch 1.13 on the CPU):

	python3 torch_pool.py > torch_pool.json

Inputs are drawn from a fixed seed and are distinct within each image and
channel, so that no window's maximum is a tie. Tensors are stored flat in
NHWC order (the layout of wgtensor's pooling), with their NHWC shapes.
"""
import json
import sys

import torch

# name, (N, H, W, C), kernel, stride, padding, dilation, ceil_mode,
# count_include_pad (None: max pooling only, as with a dilation).
CASES = [
    ("3x3 stride 2 pad 1, ceil", (2, 7, 8, 3), (3, 3), (2, 2), (1, 1), (1, 1), True, True),
    ("3x3 stride 2 pad 1, ceil, padding not counted", (2, 7, 8, 3), (3, 3), (2, 2), (1, 1), (1, 1), True, False),
    ("2x2 stride 2, ceil, last window half out", (1, 5, 5, 4), (2, 2), (2, 2), (0, 0), (1, 1), True, True),
    ("3x3 stride 3 pad 1, ceil, scatter", (2, 8, 7, 4), (3, 3), (3, 3), (1, 1), (1, 1), True, True),
    ("2x2 stride 2 pad 1, ceil drops the window in the padding", (1, 5, 5, 2), (2, 2), (2, 2), (1, 1), (1, 1), True, True),
    ("3x3 stride 2 over 2x2, ceil, window past the input", (1, 2, 2, 1), (3, 3), (2, 2), (0, 0), (1, 1), True, True),
    ("3x2 stride 2x1 pad 1x0, padding counted", (2, 6, 5, 3), (3, 2), (2, 1), (1, 0), (1, 1), False, True),
    ("3x3 stride 1 pad 1, padding counted, 4 channels", (1, 5, 6, 4), (3, 3), (1, 1), (1, 1), (1, 1), False, True),
    ("dilation 2, 3x3 stride 1 pad 1", (2, 7, 6, 3), (3, 3), (1, 1), (1, 1), (2, 2), False, None),
    ("dilation 2x3, 2x3 stride 2x1 pad 1, ceil", (1, 8, 9, 2), (2, 3), (2, 1), (1, 1), (2, 3), True, None),
    ("dilation 2, 2x2 stride 3 pad 1, ceil, scatter", (2, 8, 10, 4), (2, 2), (3, 3), (1, 1), (2, 2), True, None),
    ("dilation 3, 2x2 stride 2, ceil, 4 channels", (1, 9, 7, 4), (2, 2), (2, 2), (0, 0), (3, 3), True, None),
]


def flat(t):
    """t (NCHW) flattened in NHWC order, as float32 values."""
    return [float(v) for v in t.permute(0, 2, 3, 1).reshape(-1).tolist()]


def main():
    torch.manual_seed(20)
    out = []
    for name, (n, h, w, c), k, s, p, d, ceil, count in CASES:
        # Distinct values per image and channel (a permutation, scaled).
        x = torch.stack([torch.randperm(h * w * c).reshape(c, h, w) for _ in range(n)]).float() / 8 - 5
        case = {"name": name, "shape": [n, h, w, c], "kernel": list(k), "stride": list(s),
                "padding": list(p), "dilation": list(d), "ceil_mode": ceil, "x": flat(x)}
        xm = x.clone().requires_grad_(True)
        ym = torch.nn.functional.max_pool2d(xm, k, s, p, d, ceil_mode=ceil)
        dy = torch.rand(ym.shape) * 2 - 1
        ym.backward(dy)
        case["out_shape"] = [ym.shape[0], ym.shape[2], ym.shape[3], ym.shape[1]]
        case["dy"] = flat(dy)
        case["max"] = flat(ym.detach())
        case["max_grad"] = flat(xm.grad)
        if count is not None:
            xa = x.clone().requires_grad_(True)
            ya = torch.nn.functional.avg_pool2d(xa, k, s, p, ceil_mode=ceil, count_include_pad=count)
            ya.backward(dy)
            case["count_include_pad"] = count
            case["avg"] = flat(ya.detach())
            case["avg_grad"] = flat(xa.grad)
        out.append(case)
    json.dump({"torch": torch.__version__.split("+")[0], "cases": out}, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
