package history

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestPostgresRefusesForeignDatabases(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	if _, err := OpenPostgres(ctx, url, OpenOptions{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "no history at postgres://postgres@/") {
		t.Errorf("an empty database, read-only: %v", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE orders (id int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPostgres(ctx, url, OpenOptions{}); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "a PostgreSQL database of another program") {
		t.Errorf("another program's database: %v", err)
	}
	if _, err := OpenPostgres(ctx, "postgres://nobody:secret@/none?host=/nonexistent", OpenOptions{}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("no server: %v (the password must not show)", err)
	}
}

func TestRedact(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://team:s3cret@db.example:5432/history?sslmode=require": "postgres://team@db.example:5432/history?sslmode=require",
		"postgresql://db/history?password=s3cret&search_path=prod":       "postgresql://db/history?search_path=prod",
		"postgres://db/history": "postgres://db/history",
	} {
		if got := redact(dsn); got != want {
			t.Errorf("redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}
