package history

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// parseRV is a resourceVersion as a number, 0 when it is not one.
func parseRV(rv string) uint64 {
	n, _ := store.ParseRV(rv)
	return n
}

// splitKey undoes Key.
func splitKey(key string) (namespace, name string) {
	ns, name, _ := strings.Cut(key, "/")
	return ns, name
}

// IsSecrets says whether res is the core group's Secrets.
func IsSecrets(res kube.Resource) bool {
	return res.GVR.Group == "" && res.GVR.Resource == "secrets"
}

// HashSecretData replaces each value of a Secret's data and stringData by
// "sha256:" and the hex SHA-256 of the value it stands for (data's
// decoded), so that the record tells which keys changed, never what they
// hold. A document it cannot edit is kept without data.
func HashSecretData(doc []byte) []byte {
	for _, field := range []string{"data", "stringData"} {
		m := gjson.GetBytes(doc, field)
		if !m.IsObject() {
			continue
		}
		hashed := map[string]string{}
		m.ForEach(func(k, v gjson.Result) bool {
			value := []byte(v.Str)
			if field == "data" {
				if raw, err := base64.StdEncoding.DecodeString(v.Str); err == nil {
					value = raw
				}
			}
			sum := sha256.Sum256(value)
			hashed[k.Str] = "sha256:" + hex.EncodeToString(sum[:])
			return true
		})
		out, err := sjson.SetBytes(doc, field, hashed)
		if err != nil {
			out, _ = sjson.DeleteBytes(doc, field)
		}
		doc = out
	}
	return doc
}

// untimedChange is the time Manager gives an entry that changed but has
// none: the API server writes a subresource's entry without a time
// (kubectl scale's, for /scale), and the writer whose fields it took
// loses them in an older entry that changes too; the entry without a
// time is the change's.
const untimedChange = "9999-12-31T23:59:59Z"

// Manager returns who made an object's change from prev (nil: unknown)
// to doc: the manager of the managedFields entry of doc that is new or
// differs from prev's, the latest if several (their times have a
// second's precision: two writers in one second tie, the entry that
// changed tells them apart); without prev, or when none changed, the
// manager of the entry with the latest time. "" when it has none.
func Manager(doc, prev []byte) string {
	// An entry of doc is in prev when its text is in prev's list: an
	// entry's text starts with "{" and ends where its braces balance, so it
	// can be found in the list only as a whole entry (a string's braces and
	// quotes are escaped). One scan of prev, no set of its entries.
	before := gjson.GetBytes(prev, "metadata.managedFields").Raw
	var manager, latest string
	changed := false
	gjson.GetBytes(doc, "metadata.managedFields").ForEach(func(_, e gjson.Result) bool {
		isNew := prev != nil && !strings.Contains(before, e.Raw)
		t := e.Get("time").Str
		if t == "" && isNew {
			t = untimedChange
		}
		switch {
		case isNew && !changed: // the first changed entry beats any unchanged
			manager, latest, changed = e.Get("manager").Str, t, true
		case isNew == changed && (manager == "" || t >= latest): // RFC 3339 in UTC sorts as text
			manager, latest = e.Get("manager").Str, t
		}
		return true
	})
	return manager
}
