// Package retry retries idempotent HTTP calls with exponential backoff.
package retry

import (
	"context"
	"time"
)

// Do runs fn until it succeeds, says not to retry, or attempts run out.
// Only GET and DELETE are retried; a POST is never sent twice.
func Do(ctx context.Context, retries int, method string, fn func() (bool, error)) error {
	delay := 250 * time.Millisecond
	for attempt := 0; ; attempt++ {
		again, err := fn()
		if err == nil || !again || attempt >= retries || (method != "GET" && method != "DELETE") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
			delay *= 2
		}
	}
}
