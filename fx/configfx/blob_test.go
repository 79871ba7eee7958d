package configfx

import (
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/blobstore"
)

func TestBlobStoreDefaultsToTheDataDirOfAnEmbeddedServerOnly(t *testing.T) {
	load := func(env map[string]string, args ...string) (Config, error) {
		return Load(args, func(k string) string { return env[k] }, io.Discard)
	}
	c, err := load(nil, "--dev", "--data-dir", "/d")
	require.NoError(t, err)
	require.Equal(t, BlobConfig{Dir: filepath.Join("/d", "blobs"), Threshold: blobstore.DefaultThreshold}, c.Blob)

	c, err = load(nil)
	require.NoError(t, err)
	require.Empty(t, c.Blob.Dir, "a cluster's workers share no directory unasked: payloads stay in history")

	c, err = load(map[string]string{EnvBlobDir: "/shared", EnvBlobThreshold: "4096"})
	require.NoError(t, err)
	require.Equal(t, BlobConfig{Dir: "/shared", Threshold: 4096}, c.Blob)

	c, err = load(map[string]string{EnvBlobThreshold: "4096"}, "--blob-threshold", "8192", "--blob-dir", "/flag")
	require.NoError(t, err)
	require.Equal(t, BlobConfig{Dir: "/flag", Threshold: 8192}, c.Blob, "flags win over the environment")

	_, err = load(map[string]string{EnvBlobThreshold: "big"})
	require.ErrorContains(t, err, EnvBlobThreshold)
	_, err = load(nil, "--blob-threshold", "10")
	require.ErrorContains(t, err, "--blob-threshold must be at least 1024")
}

func TestBlobStoreURLComesFromItsFlagOrVariableAndExcludesTheDirectory(t *testing.T) {
	load := func(env map[string]string, args ...string) (Config, error) {
		return Load(args, func(k string) string { return env[k] }, io.Discard)
	}
	const url = "postgres://tether:pw@db:5432/blobs"
	c, err := load(map[string]string{EnvBlobStore: url}, "--dev", "--data-dir", "/d")
	require.NoError(t, err)
	require.Equal(t, BlobConfig{Store: url, Threshold: blobstore.DefaultThreshold}, c.Blob, "a shared store replaces the data dir's")

	c, err = load(map[string]string{EnvBlobStore: "postgres://other/db"}, "--blob-store", url)
	require.NoError(t, err)
	require.Equal(t, url, c.Blob.Store, "the flag wins over the variable")

	_, err = load(map[string]string{EnvBlobStore: url}, "--blob-dir", "/shared")
	require.ErrorContains(t, err, "exclude each other")
	_, err = load(nil, "--blob-store", "s3://bucket/x")
	require.ErrorContains(t, err, `--blob-store "s3"…: want a postgres:// or postgresql:// URL`)

	var help strings.Builder
	_, err = Load([]string{"-h"}, func(k string) string { return map[string]string{EnvBlobStore: url}[k] }, &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Contains(t, help.String(), "--blob-store")
	require.NotContains(t, help.String(), "tether:pw", "worker -h never prints the store's password")
}
