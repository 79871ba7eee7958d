// Generates src/schema.ts, the TypeScript types of Tether's wire contract,
// from schema/tether.schema.json (json-schema-to-typescript). test/schema.test.ts
// renders it again and fails when the committed file differs, so the types
// follow the schema, which a Go test keeps equal to the Go types.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { compile } = require('json-schema-to-typescript');

const root = path.join(__dirname, '..');

// schemaPath is the contract: TETHER_SCHEMA, else the repository's copy.
function schemaPath() {
  return process.env.TETHER_SCHEMA || path.join(root, '..', '..', 'schema', 'tether.schema.json');
}

const banner = '// Generated from schema/tether.schema.json by `npm run generate`; do not edit.\n' +
  '/* eslint-disable */\n';

// render returns src/schema.ts's text for the schema at file.
async function render(file) {
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  return compile(schema, 'TetherWireContract', {
    bannerComment: banner,
    unreachableDefinitions: true,
    additionalProperties: false,
    format: true,
  });
}

module.exports = { render, schemaPath, target: path.join(root, 'src', 'schema.ts') };

if (require.main === module) {
  render(schemaPath()).then((text) => {
    fs.writeFileSync(module.exports.target, text);
  }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
