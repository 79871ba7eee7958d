package cluster

import (
	"fmt"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/tools/common/schema"
	toolsql "go.temporal.io/server/tools/sql"
)

// SetupSchema creates the default and visibility databases when missing and
// brings both schemas to this server release's versions, exactly as
// `temporal-sql-tool create`, `setup-schema -v 0.0` and `update-schema
// --schema-name postgresql/v12/...` do. Running it again changes nothing.
func SetupSchema(p Postgres, logger log.Logger) error {
	for _, s := range []struct {
		cfg    *config.SQL
		schema string
	}{
		{p.sqlConfig(p.Database, 1), schemaName},
		{p.sqlConfig(p.VisibilityDatabase, 1), visibilitySchemaName},
	} {
		if err := setupDatabase(s.cfg, s.schema, logger); err != nil {
			return fmt.Errorf("schema %s in database %s: %w", s.schema, s.cfg.DatabaseName, err)
		}
	}
	return nil
}

func setupDatabase(cfg *config.SQL, name string, logger log.Logger) error {
	admin := *cfg // DoCreateDatabase connects to adminDatabase through its argument
	if err := toolsql.DoCreateDatabase(&admin, adminDatabase, logger); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	conn, err := toolsql.NewConnection(cfg, logger)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	// Version tables at 0.0 (kept when already higher), then every
	// versioned migration above the recorded version.
	if err := schema.NewSetupSchemaTask(conn, &schema.SetupConfig{InitialVersion: "0.0"}, logger).Run(); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if err := schema.NewUpdateSchemaTask(conn, &schema.UpdateConfig{DBName: cfg.DatabaseName, SchemaName: name}, logger).Run(); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	return nil
}
