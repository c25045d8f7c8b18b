package emulator

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Regression (found by FuzzServeAPI): merging a huge tag list was quadratic
// before the 50-tag limit was checked, so one request could stall the
// emulator for minutes. The count is now checked first; with the old code
// this test took tens of seconds.
func TestRegression_QuadraticTagMergeOnHugeTagList(t *testing.T) {
	e := New()
	var b strings.Builder
	b.WriteString(`{"Name":"many","Tags":[`)
	for i := range 30_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"Key":"%x"}`, i)
	}
	b.WriteString(`]}`)
	for _, op := range []string{"CreateSecret", "TagResource"} {
		body := b.String()
		if op == "TagResource" {
			body = strings.Replace(body, `"Name"`, `"SecretId"`, 1)
		}
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(body)))
		req.Header.Set("X-Amz-Target", "secretsmanager."+op)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "InvalidParameterException") {
			t.Fatalf("%s: %d %s", op, rec.Code, rec.Body.String())
		}
	}
}
