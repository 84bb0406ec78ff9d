package smclient

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/cursus-go/cursus/engine/errkind"
)

// S3Object is one object Download fetched: its key, its path relative to the URI downloaded
// (slash-separated; the object's base name when the URI is the object), and its size.
type S3Object struct {
	Key  string
	Rel  string
	Size int64
}

// TooLargeError reports a download that would pass its byte limit; nothing past the limit was
// fetched.
type TooLargeError struct {
	URI   string
	Limit int64
}

// Error implements error.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s holds more than %d bytes (the download limit)", e.URI, e.Limit)
}

// Kind implements errkind.Kinded: TooLarge.
func (e *TooLargeError) Kind() errkind.Kind { return errkind.TooLarge }

// Download fetches what an S3 URI names: the object itself when one has exactly that key, else
// every object under it as a prefix (a "/" added). It lists first and refuses with a
// *TooLargeError when the total passes limit bytes (0: no limit), then hands each object to write
// with its body. A URI that names nothing is an *AWSError with NotFound.
func (c *Client) Download(ctx context.Context, uri string, limit int64, write func(o S3Object, body io.Reader) error) ([]S3Object, error) {
	c.clients()
	bucket, key, err := parseS3URI(uri)
	if err != nil {
		return nil, &AWSError{Op: "s3:ListObjectsV2", Target: uri, Message: err.Error(), Err: err}
	}
	var objs []S3Object
	var total int64
	prefix := key
	if key != "" && !strings.HasSuffix(key, "/") {
		head, err := c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err == nil {
			objs = append(objs, S3Object{Key: key, Rel: path.Base(key), Size: aws.ToInt64(head.ContentLength)})
			total = aws.ToInt64(head.ContentLength)
		}
		prefix = key + "/"
	}
	if len(objs) == 0 {
		p := s3.NewListObjectsV2Paginator(c.s3, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, newAWSError("s3:ListObjectsV2", uri, err)
			}
			for _, o := range page.Contents {
				k := aws.ToString(o.Key)
				if strings.HasSuffix(k, "/") {
					continue // a folder marker
				}
				objs = append(objs, S3Object{Key: k, Rel: strings.TrimPrefix(k, prefix), Size: aws.ToInt64(o.Size)})
				total += aws.ToInt64(o.Size)
			}
		}
	}
	if len(objs) == 0 {
		return nil, &AWSError{Op: "s3:ListObjectsV2", Target: uri, Message: "no object at or under " + uri, NotFound: true}
	}
	if limit > 0 && total > limit {
		return nil, &TooLargeError{URI: uri, Limit: limit}
	}
	for _, o := range objs {
		out, err := c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(o.Key)})
		if err != nil {
			return nil, newAWSError("s3:GetObject", "s3://"+bucket+"/"+o.Key, err)
		}
		err = write(o, out.Body)
		out.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	return objs, nil
}
