package factory

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFactoryHasOneProviderPerDependency: the Factory has one provider
// per dependency (no two fields of one type: no field that means "else
// use that other field"), every provider is set by New, and no provider is
// a function value that reaches the run, the loader or the engine: the
// path from the command into them goes through run.Execute and the
// Sources' methods, which a reader can follow.
func TestFactoryHasOneProviderPerDependency(t *testing.T) {
	typ := reflect.TypeFor[Factory]()
	seen := map[reflect.Type]string{}
	prod := reflect.ValueOf(*New(BuildInfo{Version: "v"}))
	for i := range typ.NumField() {
		f := typ.Field(i)
		other, dup := seen[f.Type]
		assert.False(t, dup, "fields %s and %s have one type %s: one provider per dependency", other, f.Name, f.Type)
		seen[f.Type] = f.Name
		assert.False(t, prod.Field(i).IsZero(), "New leaves %s unset", f.Name)
		if f.Type.Kind() == reflect.Func {
			for _, pkg := range []string{"internal/run", "internal/desired", "internal/engine", "internal/model"} {
				assert.False(t, mentions(f.Type, pkg), "field %s is a function value of %s: the run, the loader and the engine are reached through methods", f.Name, pkg)
			}
		}
	}
}

// mentions reports whether the function type fn takes or returns a type
// of the package whose import path ends in pkg.
func mentions(fn reflect.Type, pkg string) bool {
	var types []reflect.Type
	for i := range fn.NumIn() {
		types = append(types, fn.In(i))
	}
	for i := range fn.NumOut() {
		types = append(types, fn.Out(i))
	}
	for _, t := range types {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Chan {
			t = t.Elem()
		}
		if strings.HasSuffix(t.PkgPath(), pkg) {
			return true
		}
	}
	return false
}
