#!/usr/bin/python3
"""Writes schedules.json: the learning rates torch.optim.lr_scheduler gives
(torch 1.13), step by step, for the schedules package optim implements.
schedule_test.go checks optim's closed forms against them to 1e-12
relative. Run from this directory: /usr/bin/python3 schedules.py

Each case: the schedule's settings as optim names them, the base rates of
two parameter groups, and "lrs": for n = 0, 1, ..., the rates of each group
after the scheduler's construction (n = 0) and after its n-th step(), as
optimizer.param_groups holds them. "error_at", where torch raises, is the
first n whose step() raised. Plateau cases also list the metrics given to
each step() (the rate at n follows the n-th metric)."""

import json
import math

import torch
from torch.optim import SGD
from torch.optim import lr_scheduler as S


def optimizer(bases):
    ps = [torch.nn.Parameter(torch.zeros(1)) for _ in bases]
    return SGD([{"params": [p], "lr": lr} for p, lr in zip(ps, bases)], lr=bases[0], momentum=0.9)


def rates(opt):
    return [g["lr"] for g in opt.param_groups]


def run(name, settings, bases, make, steps, metrics=None):
    opt = optimizer(bases)
    sched = make(opt)
    lrs = [rates(opt)]
    error_at = None
    for n in range(1, steps + 1):
        opt.step()
        try:
            if metrics is None:
                sched.step()
            else:
                sched.step(metrics[n - 1])
        except ValueError:
            error_at = n
            break
        lrs.append(rates(opt))
    case = {"name": name, "settings": settings, "bases": bases, "lrs": lrs}
    if error_at is not None:
        case["error_at"] = error_at
    if metrics is not None:
        case["metrics"] = metrics[: len(lrs) - 1]
    return case


def plateau_metrics():
    # Falls, then stalls with small wiggles (some within the threshold),
    # falls again, then rises: every branch of ReduceLROnPlateau is taken.
    m, out = 10.0, []
    for n in range(120):
        if n < 15:
            m *= 0.9
        elif n < 40:
            m *= 1.0 + 0.004 * math.sin(n)
        elif n < 50:
            m *= 0.8
        elif n < 90:
            m *= 1.0 + 0.0005 * math.cos(3 * n)
        else:
            m *= 1.01
        out.append(m)
    return out


def main():
    bases = [0.1, 0.02]
    cases = []
    cases.append(run("step", {"step_size": 7, "gamma": 0.5}, bases,
                     lambda o: S.StepLR(o, step_size=7, gamma=0.5), 60))
    cases.append(run("multistep", {"milestones": [10, 25, 25, 40], "gamma": 0.3}, bases,
                     lambda o: S.MultiStepLR(o, milestones=[10, 25, 25, 40], gamma=0.3), 60))
    cases.append(run("exponential", {"gamma": 0.95}, bases,
                     lambda o: S.ExponentialLR(o, gamma=0.95), 150))
    cases.append(run("linear warm-up", {"start_factor": 0.25, "end_factor": 1.0, "total_iters": 20}, bases,
                     lambda o: S.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=20), 40))
    cases.append(run("linear decay", {"start_factor": 1.0, "end_factor": 0.0, "total_iters": 50}, bases,
                     lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.0, total_iters=50), 70))
    # Cosine with linear warm-up: LinearLR, then CosineAnnealingLR from the
    # milestone on (torch's SequentialLR), past the end of the cosine.
    W, T, eta = 10, 100, 1e-5
    cases.append(run("cosine warm-up", {"warmup_steps": W, "total_steps": T, "warmup_start_factor": 0.01, "min_lr": eta}, bases,
                     lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.01, end_factor=1.0, total_iters=W),
                                                  S.CosineAnnealingLR(o, T_max=T - W, eta_min=eta)], milestones=[W]), 130))
    # The same from a start factor of 0 and no floor, which LinearLR
    # refuses: as LambdaLR computes it (the usual warm-up + cosine).
    W2, T2 = 8, 60

    def warm_cos(n):
        if n < W2:
            return n / W2
        return 0.5 * (1 + math.cos(math.pi * (n - W2) / (T2 - W2)))
    cases.append(run("cosine warm-up from zero", {"warmup_steps": W2, "total_steps": T2, "warmup_start_factor": 0.0, "min_lr": 0.0}, bases,
                     lambda o: S.LambdaLR(o, warm_cos), T2))
    cases.append(run("cosine", {"warmup_steps": 0, "total_steps": 50, "warmup_start_factor": 0.0, "min_lr": 0.001}, bases,
                     lambda o: S.CosineAnnealingLR(o, T_max=50, eta_min=0.001), 50))
    cases.append(run("one-cycle", {"max_lr": 0.0, "total_steps": 100}, bases,
                     lambda o: S.OneCycleLR(o, max_lr=bases, total_steps=100), 105))
    cases.append(run("one-cycle max_lr", {"max_lr": 0.3, "total_steps": 37}, bases,
                     lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=37), 40))
    cases.append(run("one-cycle linear three-phase", {"max_lr": 0.0, "total_steps": 50, "pct_start": 0.25, "div_factor": 10.0,
                                                     "final_div_factor": 100.0, "three_phase": True, "anneal": "linear"}, bases,
                     lambda o: S.OneCycleLR(o, max_lr=bases, total_steps=50, pct_start=0.25, div_factor=10.0,
                                            final_div_factor=100.0, three_phase=True, anneal_strategy="linear"), 52))
    ms = plateau_metrics()
    cases.append(run("plateau", {"mode": "min", "factor": 0.5, "patience": 3, "threshold": 0.01, "threshold_mode": "rel",
                                 "cooldown": 2, "min_lr": 0.004}, bases,
                     lambda o: S.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=3, threshold=0.01, cooldown=2,
                                                   min_lr=0.004), len(ms), ms))
    cases.append(run("plateau defaults", {"mode": "min", "factor": 0.1, "patience": 10, "threshold": 1e-4, "threshold_mode": "rel",
                                          "cooldown": 0, "min_lr": 0.0}, bases,
                     lambda o: S.ReduceLROnPlateau(o), len(ms), ms))
    neg = [-m for m in ms]
    cases.append(run("plateau max abs", {"mode": "max", "factor": 0.3, "patience": 2, "threshold": 0.05, "threshold_mode": "abs",
                                         "cooldown": 1, "min_lr": 0.0}, bases,
                     lambda o: S.ReduceLROnPlateau(o, mode="max", factor=0.3, patience=2, threshold=0.05,
                                                   threshold_mode="abs", cooldown=1), len(neg), neg))
    with open("schedules.json", "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
