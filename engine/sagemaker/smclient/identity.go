package smclient

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// Identity is who the calls are made as (STS GetCallerIdentity).
type Identity struct {
	Account string `json:"account"`
	ARN     string `json:"arn"`
}

// identities caches GetCallerIdentity by credentials and endpoint: an access key belongs to one
// account for good, so a process asks once per set of credentials.
var identities sync.Map // identityKey -> Identity

type identityKey struct{ accessKey, endpoint string }

// Identity answers the account and principal the client's credentials belong to, asking STS
// (GetCallerIdentity) once per credentials in the process. A failure is an *AWSError with Op
// "sts:GetCallerIdentity"; it is not cached.
func (c *Client) Identity(ctx context.Context) (Identity, error) {
	c.clients()
	if c.cfg.Credentials == nil {
		return Identity{}, &AWSError{Op: "sts:GetCallerIdentity", Message: "no AWS credentials configured"}
	}
	creds, err := c.cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return Identity{}, newAWSError("sts:GetCallerIdentity", "", err)
	}
	key := identityKey{accessKey: creds.AccessKeyID, endpoint: aws.ToString(c.cfg.BaseEndpoint)}
	if id, ok := identities.Load(key); ok {
		return id.(Identity), nil
	}
	out, err := c.sts(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, newAWSError("sts:GetCallerIdentity", "", err)
	}
	id := Identity{Account: aws.ToString(out.Account), ARN: aws.ToString(out.Arn)}
	identities.Store(key, id)
	return id, nil
}
