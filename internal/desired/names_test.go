package desired

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }
func isDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

func TestValidateName(t *testing.T) {
	ok := []string{"a", "prod/app/db", "A-Z_a+z=0.9@x-y", strings.Repeat("n", 512), "app-config"}
	for _, n := range ok {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v", n, err)
		}
	}
	bad := []string{"", strings.Repeat("n", 513), "a b", "rds!cluster", "é", "a\nb", "a*b", "a\\b", "a:b", "a#b", "a%b"}
	for _, n := range bad {
		err := ValidateName(n)
		var de *Error
		if !errors.As(err, &de) || de.Class != ClassNameInvalid {
			t.Errorf("ValidateName(%q) = %v, want %s", n, err, ClassNameInvalid)
			continue
		}
		if n != "" && strings.Contains(err.Error(), n) {
			t.Errorf("error repeats the name: %v", err)
		}
	}
}

func TestSuffixLooksLikeARN(t *testing.T) {
	yes := []string{"app-config", "db-backup", "prod/app-a1b2c3", "-abcdef", "x/y-------"}
	no := []string{"app", "app-conf", "app-configs", "appconfig", "a-b/c", "config"}
	for _, n := range yes {
		if !SuffixLooksLikeARN(n) {
			t.Errorf("SuffixLooksLikeARN(%q) = false", n)
		}
	}
	for _, n := range no {
		if SuffixLooksLikeARN(n) {
			t.Errorf("SuffixLooksLikeARN(%q) = true", n)
		}
	}
}
