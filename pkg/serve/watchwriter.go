package serve

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// watchWriter writes watch events, one JSON object a line.
type watchWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	enc     *encoder
	columns bool // the next Table carries its columnDefinitions
	buf     []byte
	ok      bool          // no write failed
	sent    *atomic.Int64 // counts the events written
	events  int           // the events this writer wrote
}

func (ww *watchWriter) start() {
	ww.ok = true
	ww.w.Header().Set("Content-Type", "application/json")
	ww.w.WriteHeader(http.StatusOK)
	ww.flush()
}

func (ww *watchWriter) objectEvent(typ string, o *object.Object) {
	if ww.enc.form == formTable {
		ww.event(typ, ww.enc.appendTable(nil, o.ResourceVersion, ww.columns, o))
		ww.columns = false
		return
	}
	ww.event(typ, ww.enc.appendObject(nil, o))
}

// writeTimeout bounds each write of a watch: a client that stops reading
// has its watch ended rather than holding a goroutine and a connection.
const writeTimeout = time.Minute

func (ww *watchWriter) event(typ string, obj []byte) {
	if !ww.ok {
		return
	}
	if ww.rc != nil {
		_ = ww.rc.SetWriteDeadline(time.Now().Add(writeTimeout)) // not every ResponseWriter can: then none
	}
	ww.buf = append(ww.buf[:0], `{"type":"`...)
	ww.buf = append(ww.buf, typ...)
	ww.buf = append(ww.buf, `","object":`...)
	ww.buf = append(ww.buf, obj...)
	ww.buf = append(ww.buf, "}\n"...)
	if _, err := ww.w.Write(ww.buf); err != nil {
		ww.ok = false
		return
	}
	ww.events++
	if ww.sent != nil {
		ww.sent.Add(1)
	}
}

func (ww *watchWriter) flush() bool {
	if ww.ok && ww.rc.Flush() != nil {
		ww.ok = false
	}
	return ww.ok
}
