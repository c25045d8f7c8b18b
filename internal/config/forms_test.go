package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegression_KMSKeyIDFormsTooLoose: a KMS key ARN of a partition or
// Region AWS does not have, an upper-case key id and an alias name with an
// empty part are config:invalid-value before any AWS call; the documented
// forms still pass.
func TestRegression_KMSKeyIDFormsTooLoose(t *testing.T) {
	for _, id := range []string{
		"arn:evil:kms:us-east-1:123456789012:alias/app",
		"arn:aws:kms:not-a-region:123456789012:alias/app",
		"arn:aws-cn:kms:us-east-1:123456789012:alias/app",
		"arn:aws:kms:US-EAST-1:123456789012:alias/app",
		"1234ABCD-12AB-34CD-56EF-1234567890AB",
		"arn:aws:kms:us-east-1:123456789012:key/1234ABCD-12AB-34CD-56EF-1234567890AB",
		"alias//",
		"alias//app",
		"alias/app/",
		"alias/aws/s3",
	} {
		in := base()
		in.Flags[KMSKeyID] = id
		_, err := Resolve(in)
		ps := problems(t, err)
		require.Len(t, ps, 1, id)
		assert.Equal(t, ClassInvalidValue, ps[0].Class, id)
		assert.Equal(t, KMSKeyID, ps[0].Subject.Setting)
		assert.NotContains(t, ps[0].Line(), id)
	}
	for _, id := range []string{
		"arn:aws:kms:us-east-1:123456789012:alias/aws/secretsmanager",
		"arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/mrk-1234abcd12ab34cd56ef1234567890ab",
		"alias/team/app",
	} {
		in := base()
		in.Flags[KMSKeyID] = id
		_, err := Resolve(in)
		require.NoError(t, err, id)
	}
}

// TestRegression_YAMLScalarsForTextAreStrings: one rule for every text
// value of the config file (a string setting, a tag key, a tag value): it
// must be a YAML string. A number, boolean, date or null is
// config:wrong-type, as description: 42 always was; quoted, it is the text.
func TestRegression_YAMLScalarsForTextAreStrings(t *testing.T) {
	for name, file := range map[string]string{
		"tag value number":  "tag:\n  cost: 42\n",
		"tag value float":   "tag:\n  ratio: 1e3\n",
		"tag value boolean": "tag:\n  enabled: true\n",
		"tag value date":    "tag:\n  since: 2024-01-01\n",
		"tag value null":    "tag:\n  owner: ~\n",
		"tag key number":    "tag:\n  42: x\n",
		"tag key boolean":   "tag:\n  true: x\n",
		"description":       "description: 42\n",
		"kms key id":        "kms-key-id: 1234\n",
	} {
		t.Run(name, func(t *testing.T) {
			in := base()
			in.Flags[ConfigFile] = "c.yaml"
			in.ReadFile = func(string) ([]byte, error) { return []byte(file), nil }
			_, err := Resolve(in)
			ps := problems(t, err)
			require.Len(t, ps, 1)
			assert.Equal(t, ClassWrongType, ps[0].Class)
		})
	}
	in := base()
	in.Flags[ConfigFile] = "c.yaml"
	in.ReadFile = func(string) ([]byte, error) {
		return []byte("tag:\n  cost: \"42\"\n  enabled: 'true'\n  \"7\": x\ndescription: \"42\"\n"), nil
	}
	o, err := Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cost": "42", "enabled": "true", "7": "x"}, o.Engine.Metadata.Tags)
	assert.Equal(t, "42", o.Engine.Metadata.Description)
}

// TestRegression_OutOfRangeIntegerSaysOutOfRange: an integer too large for
// the machine is config:invalid-value "is out of range" with the range
// the setting accepts, from every source, not "must be a base-10 integer".
func TestRegression_OutOfRangeIntegerSaysOutOfRange(t *testing.T) {
	const huge = "99999999999999999999"
	for _, c := range []struct {
		setting, value, reason string
		file                   bool
	}{
		{RecoveryWindowDays, huge, "is out of range: must be between 7 and 30 days", false},
		{RecoveryWindowDays, "-" + huge, "is out of range: must be between 7 and 30 days", false},
		{RecoveryWindowDays, huge, "is out of range: must be between 7 and 30 days", true},
		{Concurrency, huge, "is out of range: must be between 1 and 64", false},
		{AWSMaxAttempts, huge, "is out of range: must be between 0 and 100 (0 = SDK default)", true},
		{MaxDeletions, "-" + huge, "is out of range: must be 0 or more", false},
		{MaxDeletions, huge, "is out of range: must be at most 9223372036854775807", false},
		{MaxEncryptedBytes, huge + "GiB", "is out of range: a size is at most 9223372036854775807 bytes (8 EiB less one byte)", false},
		{MaxEncryptedBytes, huge, "is out of range: a size is at most 9223372036854775807 bytes (8 EiB less one byte)", true},
	} {
		in := base()
		if c.file {
			in.Flags[ConfigFile] = "c.yaml"
			in.ReadFile = func(string) ([]byte, error) { return []byte(c.setting + ": " + c.value + "\n"), nil }
		} else {
			in.Environ = []string{EnvName(c.setting) + "=" + c.value}
		}
		_, err := Resolve(in)
		ps := problems(t, err)
		require.Len(t, ps, 1, "%+v", c)
		assert.Equal(t, ClassInvalidValue, ps[0].Class, "%+v", c)
		assert.Equal(t, c.reason, ps[0].Summary, "%+v", c)
		assert.False(t, strings.Contains(ps[0].Line(), huge), "the value is not echoed")
	}
	// A malformed integer is still the wrong type.
	in := base()
	in.Flags[RecoveryWindowDays] = "7days"
	_, err := Resolve(in)
	ps := problems(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, ClassWrongType, ps[0].Class)
}

// TestRegression_RegionFormTooLoose: --aws-region takes only a Region code
// of an AWS partition (the SDK's endpoint patterns), not any text shaped
// like one.
func TestRegression_RegionFormTooLoose(t *testing.T) {
	for _, r := range []string{"zz-east-1", "us-east1a-1", "us-gov-west-1-x", "ab-cd-ef-1", "eu-west-01a"} {
		in := base()
		in.Flags[AWSRegion] = r
		_, err := Resolve(in)
		ps := problems(t, err)
		require.Len(t, ps, 1, r)
		assert.Equal(t, ClassInvalidValue, ps[0].Class, r)
	}
	for _, r := range []string{"eu-west-1", "us-gov-west-1", "cn-northwest-1", "ap-southeast-5", "us-isob-east-1", "eusc-de-east-1"} {
		in := base()
		in.Flags[AWSRegion] = r
		_, err := Resolve(in)
		require.NoError(t, err, r)
	}
}
