package sagemaker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// UploadItem is one local file the pipeline needs in S3 (a step script, a packed source directory,
// a hyperparameters file): where it is, where it goes, and what it must contain.
type UploadItem struct {
	LocalPath string `json:"local_path"` // regular file on this machine (directories must be packed first)
	S3URI     string `json:"s3_uri"`     // destination, s3://bucket/key
	SHA256    string `json:"sha256"`     // lowercase hex SHA-256 of the file's content
	Size      int64  `json:"size"`       // file size in bytes
}

// Manifest is the ordered list of files to upload before the pipeline is created or updated.
type Manifest []UploadItem

// HashFile returns the lowercase hex SHA-256 and the size of the regular file at path, the values an
// UploadItem records. A directory or other non-regular file is an error.
func HashFile(path string) (sha256Hex string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s: not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// NewUploadItem hashes the file at localPath and returns the UploadItem that sends it to s3URI.
func NewUploadItem(localPath, s3URI string) (UploadItem, error) {
	sum, size, err := HashFile(localPath)
	if err != nil {
		return UploadItem{}, err
	}
	return UploadItem{LocalPath: localPath, S3URI: s3URI, SHA256: sum, Size: size}, nil
}
