package redisstore

import (
	"cmp"
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// wrongTopology is the error of a server SVC_REDIS_MODE does not fit:
// what it is and the setting to change. Check names SVC_REDIS_URL around
// it.
type wrongTopology struct{ what string }

func (e *wrongTopology) Error() string { return e.what }

// pingSingle is the single mode's PING, with the server asked what it is
// in the same round trip (INFO server and replication): SVC_REDIS_URL
// naming a Cluster node, a sentinel or a replica would otherwise start,
// be ready, and fail every command (MOVED, unknown command 'evalsha',
// READONLY) (issue 37). A server that refuses INFO (an ACL user without
// it) is taken at its word.
func (c *Client) pingSingle(ctx context.Context) error {
	var ping *redis.StatusCmd
	var info *redis.StringCmd
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		ping = p.Ping(ctx)
		info = p.Info(ctx, "server", "replication")
		return nil
	})
	if ping.Val() != "PONG" {
		// A refused login or a failed dial fails the whole pipeline,
		// perhaps without an error on each command.
		if perr := ping.Err(); perr != nil {
			return perr
		}
		return cmp.Or(err, errShape)
	}
	s, err := info.Result()
	if err != nil {
		return nil // INFO refused: the PING answered
	}
	return roleError(s)
}

// roleError reads an INFO reply: nil for a primary outside a Cluster.
func roleError(info string) error {
	fields := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			fields[k] = v
		}
	}
	mode := fields["server_mode"] // Valkey
	if mode == "" {
		mode = fields["redis_mode"]
	}
	switch mode {
	case "cluster":
		return &wrongTopology{"is a node of a Redis Cluster, which SVC_REDIS_MODE=single cannot use (every key of another node's slots answers MOVED): set SVC_REDIS_MODE=cluster"}
	case "sentinel":
		return &wrongTopology{"is a Redis Sentinel, not a data server (it answers no store's command): set SVC_REDIS_MODE=sentinel and name the primary it monitors with ?master_name=<name>"}
	}
	if fields["role"] == "slave" {
		return &wrongTopology{"is a replica of " + fields["master_host"] + ":" + fields["master_port"] +
			" (read-only: every write would fail): point SVC_REDIS_URL at the primary, or set SVC_REDIS_MODE=sentinel to follow it"}
	}
	return nil
}
