#!/usr/bin/env python3
"""Writes torch_loss.json: PyTorch's cross_entropy (class weights,
ignore_index, label_smoothing; labels and probabilities) and
binary_cross_entropy_with_logits (weight, pos_weight), each reduced by
"mean", "sum" and "none", with the gradient of the mean with respect to
the logits, for loss/options_test.go to compare against.

Run from this directory with PyTorch installed (the values were made with
torch 1.13 on the CPU):

	python3 torch_loss.py > torch_loss.json

Tensors are stored flat, in wgtensor's layout: the classes on the last
axis (PyTorch's cross_entropy takes them on axis 1, so logits of rank 3
are permuted for it).
"""
import json
import sys

import torch
import torch.nn.functional as F


def flat(t):
    return [float(v) for v in t.reshape(-1).tolist()]


def to_torch(x):
    """Our [..., C] logits as PyTorch's [N, C, ...] (rank 3 and more)."""
    if x.dim() <= 2:
        return x
    return x.movedim(-1, 1)


def ce_case(name, logits, target, weight=None, ignore_index=-100, label_smoothing=0.0):
    case = {"name": name, "kind": "ce", "shape": list(logits.shape), "logits": flat(logits)}
    if target.dtype == torch.int64:
        case["labels"] = [int(v) for v in target.reshape(-1).tolist()]
    else:
        case["probs"] = flat(target)
    if weight is not None:
        case["weight"] = flat(weight)
    case["ignore_index"] = ignore_index
    case["label_smoothing"] = label_smoothing
    tt = target if target.dtype == torch.int64 else to_torch(target)
    for red in ("mean", "sum", "none"):
        x = logits.clone().requires_grad_(True)
        y = F.cross_entropy(to_torch(x), tt, weight=weight, ignore_index=ignore_index,
                            reduction=red, label_smoothing=label_smoothing)
        if red == "none":
            case["none"] = flat(y.detach())
        else:
            case[red] = float(y)
        if red == "mean":
            y.backward()
            case["grad_mean"] = flat(x.grad)
    return case


def bce_case(name, logits, target, weight=None, pos_weight=None):
    case = {"name": name, "kind": "bce", "shape": list(logits.shape), "logits": flat(logits),
            "probs": flat(target)}
    if weight is not None:
        case["weight"] = flat(weight)
        case["weight_shape"] = list(weight.shape)
    if pos_weight is not None:
        case["pos_weight"] = flat(pos_weight)
        case["pos_weight_shape"] = list(pos_weight.shape)
    for red in ("mean", "sum", "none"):
        x = logits.clone().requires_grad_(True)
        y = F.binary_cross_entropy_with_logits(x, target, weight=weight, pos_weight=pos_weight, reduction=red)
        if red == "none":
            case["none"] = flat(y.detach())
        else:
            case[red] = float(y)
        if red == "mean":
            y.backward()
            case["grad_mean"] = flat(x.grad)
    return case


def main():
    torch.manual_seed(4)
    C = 5
    x = torch.randn(9, C) * 3
    y = torch.randint(0, C, (9,))
    y[1] = -100
    y[6] = -100
    w = torch.rand(C) + 0.25
    x3 = torch.randn(2, 3, 4) * 2
    y3 = torch.randint(0, 4, (2, 3))
    y3[0, 2] = 1
    y3[1, 0] = 1
    probs = torch.softmax(torch.randn(6, C), dim=-1)
    big = torch.randn(4, C) * 50
    yb = torch.randint(0, C, (4,))
    cases = [
        ce_case("labels, ignoring -100", x, y),
        ce_case("labels, ignoring -100, class weights", x, y, weight=w),
        ce_case("labels, ignoring -100, smoothing 0.1", x, y, label_smoothing=0.1),
        ce_case("labels, ignoring -100, class weights, smoothing 0.25", x, y, weight=w, label_smoothing=0.25),
        ce_case("labels, ignoring class 1, class weights, smoothing 0.3", x3, y3, weight=torch.rand(4) + 0.5,
                ignore_index=1, label_smoothing=0.3),
        ce_case("labels of rank 2, smoothing 1", x3, y3, label_smoothing=1.0),
        ce_case("logits of ±50, class weights, smoothing 0.05", big, yb, weight=w, label_smoothing=0.05),
        ce_case("probabilities, class weights, smoothing 0.2", torch.randn(6, C), probs, weight=w, label_smoothing=0.2),
        ce_case("probabilities", torch.randn(6, C), probs),
        bce_case("pos_weight per class", torch.randn(4, 3) * 3, torch.rand(4, 3), pos_weight=torch.rand(3) * 3),
        bce_case("weight and pos_weight, rank 3", torch.randn(2, 3, 4) * 4, torch.randint(0, 2, (2, 3, 4)).float(),
                 weight=torch.rand(3, 1) + 0.5, pos_weight=torch.rand(4) * 4),
        bce_case("logits of ±40, pos_weight", torch.randn(3, 5) * 40, torch.rand(3, 5), pos_weight=torch.rand(5) + 0.5),
    ]
    json.dump({"torch": torch.__version__.split("+")[0], "cases": cases}, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
