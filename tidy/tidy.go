// Package tidy disposes what a function creates, as tf.tidy does, and
// unlike tf.tidy a scope may span awaits.
//
// tidy knows nothing of tensors: it scopes anything with a Dispose method
// that a Scoper (such as *tensor.Engine) reports as created.
//
//	y, err := tidy.Run(e, func() (*tensor.Tensor, error) {
//		h := e.Relu(e.MatMul(x, w)) // disposed when Run returns
//		v, err := h.Float32s(ctx)   // awaiting inside a scope is fine
//		...
//		return e.Softmax(h, -1), nil // returned: kept, and handed to the outer scope
//	})
//
// # Why a scope may span an await
//
// tf.tidy is synchronous because JavaScript interleaves other work on its
// one thread while a promise is pending, and that work's tensors would land
// in the scope. Here a scope claims its Scoper for the goroutine that runs
// it: while the scope is open, a *tensor.Engine refuses ops and scopes from
// every other goroutine with tensor.ErrConcurrentUse, also while the owner
// waits, so nothing else can create tensors in the scope.
//
// # Panics and errors
//
// When fn returns an error, everything it created except its results and
// what was kept is still disposed, and the results are returned as they
// are. When fn panics, everything it created is disposed and the panic is
// re-raised unchanged.
//
// # Concurrency
//
// A scope belongs to the goroutine that calls Run, and so does its Scoper
// until the outermost scope ends: fn must not hand the Scoper's work to
// other goroutines (their ops fail). Run on a Scoper that another
// goroutine's scope or op holds returns the Scoper's error without calling
// fn. Keep and Dispose are safe from any goroutine.
package tidy

import (
	"reflect"
	"sync"
)

// Disposable is anything that holds memory until disposed.
type Disposable interface{ Dispose() }

// Scoper reports what it creates to the innermost tracker pushed on it.
// *tensor.Engine is a Scoper. PushTracker may refuse (Run returns its
// error); a Scoper that accepts belongs to the pushing goroutine until it
// pops its last tracker, and PopTracker and Retrack, which Run calls on
// that goroutine, act only for it.
type Scoper interface {
	PushTracker(tr interface {
		Track(x interface{ Dispose() })
	}) error
	PopTracker()
	Retrack(x interface{ Dispose() })
}

// scope collects what is created while it is the innermost tracker.
type scope struct {
	mu    sync.Mutex
	items []interface{ Dispose() }
}

// Track records x as created in the scope.
func (s *scope) Track(x interface{ Dispose() }) {
	s.mu.Lock()
	s.items = append(s.items, x)
	s.mu.Unlock()
}

// Run calls fn in a new scope on s and disposes everything created in it,
// except fn's result (a Disposable, or slices, arrays, maps, pointers and
// structs with exported fields holding them) and what was kept. The result
// moves to the scope around this one, if any. If s refuses the scope
// (PushTracker fails: another goroutine holds it), Run returns that error
// without calling fn. See the package doc for errors and panics.
func Run[T any](s Scoper, fn func() (T, error)) (result T, err error) {
	sc := &scope{}
	if err := s.PushTracker(sc); err != nil {
		return result, err
	}
	defer func() {
		r := recover()
		s.PopTracker()
		keep := make(map[interface{ Dispose() }]bool)
		if r == nil {
			walk(reflect.ValueOf(&result).Elem(), func(d Disposable) { keep[d] = true })
		}
		sc.mu.Lock()
		items := sc.items
		sc.items = nil
		sc.mu.Unlock()
		for _, x := range items {
			switch {
			case keep[x]:
				s.Retrack(x)
			case isKept(x):
			default:
				x.Dispose()
			}
		}
		if r != nil {
			panic(r)
		}
	}()
	return fn()
}

// Do is Run for a function with no result.
func Do(s Scoper, fn func() error) error {
	_, err := Run(s, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

func isKept(x any) bool {
	k, ok := x.(interface{ Kept() bool })
	return ok && k.Kept()
}

// Keep marks every Disposable in x (walked as Run walks results) to
// survive all scopes, if it supports keeping (a Keep method), and returns x.
func Keep[T any](x T) T {
	walk(reflect.ValueOf(&x).Elem(), func(d Disposable) {
		if k, ok := d.(interface{ Keep() }); ok {
			k.Keep()
		}
	})
	return x
}

// Dispose disposes every Disposable in x: a Disposable, or slices, arrays,
// maps, pointers and structs with exported fields holding them, nested.
func Dispose(x any) {
	walk(reflect.ValueOf(&x).Elem(), func(d Disposable) { d.Dispose() })
}

var disposableType = reflect.TypeFor[Disposable]()

// walk calls f on each non-nil Disposable reachable from v.
func walk(v reflect.Value, f func(Disposable)) {
	seen := make(map[uintptr]bool)
	var visit func(v reflect.Value)
	visit = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
			if v.IsNil() {
				return
			}
		}
		if v.Type().Implements(disposableType) && v.CanInterface() {
			if v.Kind() == reflect.Pointer {
				if seen[v.Pointer()] {
					return
				}
				seen[v.Pointer()] = true
			}
			f(v.Interface().(Disposable))
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			visit(v.Elem())
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				visit(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				visit(it.Key())
				visit(it.Value())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					visit(v.Field(i))
				}
			}
		}
	}
	visit(v)
}
