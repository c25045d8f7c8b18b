package chaos

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The metadata draw (issue 14): MetadataShare of the scenarios configure
// metadata on every run, changing between runs, the final sync and plan
// sharing one draw; every drawn setting is valid; the rest of a scenario is
// the one the flag-off campaign plays, byte for byte.
func TestGenerateMetadataDrawsChangingValidSettingsWithoutChangingTheRest(t *testing.T) {
	on, off := DefaultGenOptions, DefaultGenOptions
	on.Metadata, off.Metadata = true, false
	var scenarios, changed int
	for i := range 300 {
		a, err := Generate(5, i, off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(5, i, on)
		if err != nil {
			t.Fatal(err)
		}
		var finals []*model.Metadata
		var prev *model.Metadata
		for ri := range b.Runs {
			m := b.Runs[ri].Metadata
			if a.Runs[ri].Metadata != nil {
				t.Fatalf("scenario %d: metadata without the flag", i)
			}
			if m == nil {
				continue
			}
			if ri == 0 {
				scenarios++
			}
			if m.KMSKeyID != "" && model.ValidateKMSKeyID(m.KMSKeyID) != nil || model.ValidateTags(m.Tags) != nil || model.ValidateDescription(m.Description) != nil {
				t.Fatalf("scenario %d run %d: an invalid draw %+v", i, ri, m)
			}
			if prev != nil && !reflect.DeepEqual(prev, m) {
				changed++
			}
			prev = m
			if b.Runs[ri].Final {
				finals = append(finals, m)
			}
			b.Runs[ri].Metadata = nil
		}
		if len(finals) == 2 && finals[0] != finals[1] {
			t.Fatalf("scenario %d: the final sync and plan configure different metadata", i)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("scenario %d: the metadata draw changed more than the metadata", i)
		}
	}
	if scenarios < 90 || scenarios > 150 || changed < scenarios/2 {
		t.Fatalf("draw: %d of 300 scenarios, %d changes between runs", scenarios, changed)
	}
}

func TestChangedTagIgnoresOnlyManagedKeys(t *testing.T) {
	before := map[string]string{"a": "1", "b": "2"}
	managed := map[string]bool{"m": true}
	for _, c := range []struct {
		after map[string]string
		want  string
	}{
		{map[string]string{"a": "1", "b": "2"}, ""},
		{map[string]string{"a": "1", "b": "2", "m": "x"}, ""},
		{map[string]string{"a": "1"}, "b"},
		{map[string]string{"a": "9", "b": "2"}, "a"},
		{map[string]string{"a": "1", "b": "2", "z": ""}, "z"},
	} {
		if got := changedTag(before, c.after, managed); got != c.want {
			t.Errorf("changedTag(%v) = %q, want %q", c.after, got, c.want)
		}
	}
}
