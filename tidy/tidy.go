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
	"errors"
	"reflect"
	"sync"
)

// ErrNil is the error of Run or Do called with a nil Scoper or a nil
// function.
var ErrNil = errors.New("tidy: nil Scoper or function")

// Disposable is anything that holds memory until disposed. It is an alias,
// so a method declared with interface{ Dispose() } satisfies Tracker too.
type Disposable = interface{ Dispose() }

// Tracker is told about each Disposable a Scoper creates while the
// Tracker is the innermost one pushed on it. Run's scopes are Trackers.
type Tracker interface {
	Track(x Disposable)
}

// Scoper reports what it creates to the innermost Tracker pushed on it.
// *tensor.Engine is a Scoper. PushTracker may refuse (Run returns its
// error); a Scoper that accepts belongs to the pushing goroutine until it
// pops its last tracker, and PopTracker and Retrack, which Run calls on
// that goroutine, act only for it.
type Scoper interface {
	PushTracker(tr Tracker) error
	PopTracker()
	Retrack(x Disposable)
}

// scope collects what is created while it is the innermost tracker.
type scope struct {
	mu    sync.Mutex
	items []Disposable
}

// Track records x as created in the scope.
func (s *scope) Track(x Disposable) {
	s.mu.Lock()
	s.items = append(s.items, x)
	s.mu.Unlock()
}

// Run calls fn in a new scope on s and disposes everything created in it,
// except fn's result and what was kept. The result may be a Disposable, or
// slices, arrays, maps, pointers, interfaces and structs with exported
// fields holding them, nested to any depth and with cycles; what a
// Disposable in it holds the same way is kept too. The result moves to the
// scope around this one, if any. If s refuses the scope (PushTracker
// fails: another goroutine holds it), Run returns that error without
// calling fn. See the package doc for errors and panics. A nil s or fn
// gives ErrNil.
func Run[T any](s Scoper, fn func() (T, error)) (result T, err error) {
	if s == nil || fn == nil {
		return result, ErrNil
	}
	sc := &scope{}
	if err := s.PushTracker(sc); err != nil {
		return result, err
	}
	defer func() {
		r := recover()
		s.PopTracker()
		keep := make(map[Disposable]bool)
		if r == nil {
			walk(reflect.ValueOf(&result).Elem(), true, func(d Disposable) {
				if hashable(d) {
					keep[d] = true
				}
			})
		}
		sc.mu.Lock()
		items := sc.items
		sc.items = nil
		sc.mu.Unlock()
		for _, x := range items {
			switch {
			case hashable(x) && keep[x]:
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
	if fn == nil {
		return ErrNil
	}
	_, err := Run(s, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

func isKept(x any) bool {
	k, ok := x.(interface{ Kept() bool })
	return ok && k.Kept()
}

// hashable reports whether x can be a map key (a Disposable of a slice
// type, say, cannot).
func hashable(x any) bool { return reflect.ValueOf(x).Comparable() }

// Keep marks every Disposable in x (walked as Run walks results, into
// Disposables too) to survive all scopes, if it supports keeping (a Keep
// method), and returns x.
func Keep[T any](x T) T {
	walk(reflect.ValueOf(&x).Elem(), true, func(d Disposable) {
		if k, ok := d.(interface{ Keep() }); ok {
			k.Keep()
		}
	})
	return x
}

// Dispose disposes every Disposable in x: a Disposable, or slices, arrays,
// maps, pointers, interfaces and structs with exported fields holding
// them, nested, with cycles. A Disposable is trusted to dispose what it
// holds: Dispose does not look inside it.
func Dispose(x any) {
	walk(reflect.ValueOf(&x).Elem(), false, func(d Disposable) { d.Dispose() })
}

var disposableType = reflect.TypeFor[Disposable]()

// walk calls f once on each non-nil Disposable reachable from root through
// pointers, interfaces, slices, arrays, maps and exported struct fields,
// and goes on inside each Disposable if into is set. It visits every
// pointer, map and slice once, so cycles end, and keeps its work list on
// the heap, so deep structures do not overflow the stack. Values of types
// that cannot hold a Disposable (a []float32, say) are skipped whole.
func walk(root reflect.Value, into bool, f func(Disposable)) {
	type visit struct {
		t   reflect.Type
		ptr uintptr
		len int
	}
	seen := make(map[visit]bool)
	todo := []reflect.Value{root}
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !v.IsValid() || !mayHold(v.Type()) {
			continue
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice:
			if v.IsNil() {
				continue
			}
			k := visit{t: v.Type(), ptr: v.Pointer()}
			if v.Kind() == reflect.Slice {
				k.len = v.Len()
			}
			if seen[k] {
				continue
			}
			seen[k] = true
		case reflect.Interface:
			if v.IsNil() {
				continue
			}
		}
		if v.Kind() != reflect.Interface && v.Type().Implements(disposableType) && v.CanInterface() {
			f(v.Interface().(Disposable))
			if !into {
				continue
			}
		}
		todo = appendChildren(todo, v)
	}
}

// appendChildren appends to todo what walk visits inside v, last first, so
// that walk visits them in order.
func appendChildren(todo []reflect.Value, v reflect.Value) []reflect.Value {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		todo = append(todo, v.Elem())
	case reflect.Slice, reflect.Array:
		for i := v.Len() - 1; i >= 0; i-- {
			todo = append(todo, v.Index(i))
		}
	case reflect.Map:
		var kv []reflect.Value
		for it := v.MapRange(); it.Next(); {
			kv = append(kv, it.Key(), it.Value())
		}
		for i := len(kv) - 1; i >= 0; i-- {
			todo = append(todo, kv[i])
		}
	case reflect.Struct:
		for i := v.NumField() - 1; i >= 0; i-- {
			if v.Type().Field(i).IsExported() {
				todo = append(todo, v.Field(i))
			}
		}
	}
	return todo
}

// holdsCache remembers mayHold's answers by type.
var holdsCache sync.Map // reflect.Type → bool

// mayHold reports whether a value of type t can reach a Disposable along
// the paths walk follows.
func mayHold(t reflect.Type) bool {
	if h, ok := holdsCache.Load(t); ok {
		return h.(bool)
	}
	h := holds(t, make(map[reflect.Type]bool))
	holdsCache.Store(t, h)
	return h
}

// holds is mayHold without the cache. The types in visiting are being
// looked at already: reaching one again adds nothing, so it counts as
// holding none (only the outermost answer is right, and only it is
// cached).
func holds(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if t.Kind() == reflect.Interface || t.Implements(disposableType) {
		return true
	}
	if visiting[t] {
		return false
	}
	visiting[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holds(t.Elem(), visiting)
	case reflect.Map:
		return holds(t.Key(), visiting) || holds(t.Elem(), visiting)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holds(f.Type, visiting) {
				return true
			}
		}
	}
	return false
}
