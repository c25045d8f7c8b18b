package releaseinfo

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sumA = "1111111111111111111111111111111111111111111111111111111111111111"
	sumB = "2222222222222222222222222222222222222222222222222222222222222222"
)

func TestParseReadsAssetsSortedByPlatform(t *testing.T) {
	r, err := Parse([]byte(sumB + "  sops-aws-sync_1.2.3-rc.1_linux_arm64\n" + sumA + "  sops-aws-sync_1.2.3-rc.1_darwin_amd64\n"))
	require.NoError(t, err)
	assert.Equal(t, "1.2.3-rc.1", r.Version)
	assert.Equal(t, []Asset{
		{Name: "sops-aws-sync_1.2.3-rc.1_darwin_amd64", OS: "darwin", Arch: "amd64", SHA256: sumA},
		{Name: "sops-aws-sync_1.2.3-rc.1_linux_arm64", OS: "linux", Arch: "arm64", SHA256: sumB},
	}, r.Assets)
	a, ok := r.Find("linux", "arm64")
	require.True(t, ok)
	assert.Len(t, a.DecodeSHA256(), 32)
	assert.Equal(t, a.Name, AssetName(r.Version, "linux", "arm64"))
}

func TestParseRefusesWhatReleaseShDoesNotWrite(t *testing.T) {
	for name, text := range map[string]string{
		"empty":          "",
		"binary marker":  sumA + " *sops-aws-sync_1.2.3_linux_amd64\n",
		"short digest":   sumA[:63] + "  sops-aws-sync_1.2.3_linux_amd64\n",
		"upper hex":      strings.ToUpper(sumA[:1]) + "A" + sumA[2:] + "  sops-aws-sync_1.2.3_linux_amd64\n",
		"other project":  sumA + "  sops_1.2.3_linux_amd64\n",
		"v prefix":       sumA + "  sops-aws-sync_v1.2.3_linux_amd64\n",
		"unknown os":     sumA + "  sops-aws-sync_1.2.3_windows_amd64\n",
		"two versions":   sumA + "  sops-aws-sync_1.2.3_linux_amd64\n" + sumB + "  sops-aws-sync_1.2.4_linux_arm64\n",
		"platform twice": sumA + "  sops-aws-sync_1.2.3_linux_amd64\n" + sumB + "  sops-aws-sync_1.2.3_linux_amd64\n",
	} {
		_, err := Parse([]byte(text))
		assert.Error(t, err, name)
	}
}

// FuzzParse: Parse never panics, and what it accepts round-trips through
// AssetName and has one version.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sumA + "  sops-aws-sync_1.2.3_linux_amd64\n" + sumB + "  sops-aws-sync_1.2.3_darwin_arm64\n"))
	f.Add([]byte(sumA + "  sops-aws-sync_0.0.0-snapshot.abc_linux_arm64"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		require.NotEmpty(t, r.Assets, "accepted without an asset")
		for _, a := range r.Assets {
			require.Equal(t, AssetName(r.Version, a.OS, a.Arch), a.Name)
			require.Len(t, a.DecodeSHA256(), 32)
		}
	})
}
