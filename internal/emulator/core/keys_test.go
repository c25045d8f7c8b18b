package core

import "testing"

func TestParseKeyRef(t *testing.T) {
	const id = "1234abcd-12ab-34cd-56ef-1234567890ab"
	for _, c := range []struct {
		in   string
		want KeyRef
		ok   bool
	}{
		{id, KeyRef{KeyID: id}, true},
		{"mrk-0123456789abcdef0123456789abcdef", KeyRef{KeyID: "mrk-0123456789abcdef0123456789abcdef"}, true},
		{"alias/app", KeyRef{Alias: "alias/app"}, true},
		{"arn:aws:kms:eu-west-1:123456789012:key/" + id, KeyRef{KeyID: id, ARN: true, Region: "eu-west-1", Account: "123456789012"}, true},
		{"arn:aws:kms:eu-west-1:123456789012:alias/app", KeyRef{Alias: "alias/app", ARN: true, Region: "eu-west-1", Account: "123456789012"}, true},
		// another partition is as foreign as another Region
		{"arn:aws-cn:kms:cn-north-1:123456789012:key/" + id, KeyRef{KeyID: id, ARN: true, Region: "aws-cn:cn-north-1", Account: "123456789012"}, true},
		{"1234abcd-12ab-34cd-56ef-1234567890a", KeyRef{}, false},
		{"mrk-0123", KeyRef{}, false},
		{"alias/", KeyRef{}, false},
		{"alias/a b", KeyRef{}, false},
		{"arn:aws:kms:eu-west-1:1234:key/" + id, KeyRef{}, false},
		{"arn:aws:s3:eu-west-1:123456789012:key/" + id, KeyRef{}, false},
		{"arn:aws:kms:eu-west-1:123456789012:grant/x", KeyRef{}, false},
	} {
		got, ok := ParseKeyRef(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseKeyRef(%q) = %+v %v, want %+v %v", c.in, got, ok, c.want, c.ok)
		}
		if ValidKeyForm(c.in) != c.ok {
			t.Errorf("ValidKeyForm(%q) = %v", c.in, !c.ok)
		}
	}
}
