// Generates src/schema.ts, the TypeScript types of Tether's wire contract,
// and src/events.ts, the shape of each session event's data,
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

// zeroOf is the JSON Go's encoding writes for a field's zero value: what
// a required field of an event decoded from an object that lacks it
// becomes.
function zeroOf(defs, prop, depth = 0) {
  if (prop.$ref && depth < 8) {
    const def = defs[prop.$ref.replace('#/$defs/', '')];
    const out = {};
    for (const name of def.required ?? []) out[name] = zeroOf(defs, def.properties[name], depth + 1);
    return out;
  }
  const types = [].concat(prop.type ?? []);
  if (prop.anyOf || types.includes('null') || types.includes('array')) return null;
  if (types.includes('string')) return '';
  if (types.includes('integer') || types.includes('number')) return 0;
  if (types.includes('boolean')) return false;
  if (types.includes('object')) return null;
  return null;
}

// renderEvents returns src/events.ts's text: for each session event type
// (x-tether.events), its data's fields in order, the zero values of its
// required ones, and the optional fields that are maps (left out when
// empty), so that the log folded from history is the Go encoding's.
function renderEvents(file) {
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  const defs = schema.$defs;
  const out = {};
  for (const [type, ref] of Object.entries(schema['x-tether'].events).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const def = defs[ref.replace('#/$defs/', '')];
    const props = def.properties ?? {};
    const required = def.required ?? [];
    const zero = {};
    for (const name of required) zero[name] = zeroOf(defs, props[name]);
    const maps = Object.keys(props).filter((name) => !required.includes(name) &&
      [].concat(props[name].type ?? []).includes('object') && !props[name].$ref);
    out[type] = { fields: Object.keys(props), zero, maps };
  }
  return '// Generated from schema/tether.schema.json by `npm run generate`; do not edit.\n' +
    '// Each session event type\'s data fields in order, the zero values of the required ones and the\n' +
    '// optional map fields (left out when empty): what Go\'s encoding of the event writes.\n' +
    'export interface EventShape {\n  fields: readonly string[];\n  zero: Readonly<Record<string, unknown>>;\n  maps: readonly string[];\n}\n\n' +
    `export const EventShapes: Readonly<Record<string, EventShape>> = ${JSON.stringify(out, null, 2)};\n`;
}

module.exports = {
  render, renderEvents, schemaPath, target: path.join(root, 'src', 'schema.ts'), eventsTarget: path.join(root, 'src', 'events.ts'),
};

if (require.main === module) {
  render(schemaPath()).then((text) => {
    fs.writeFileSync(module.exports.target, text);
    fs.writeFileSync(module.exports.eventsTarget, renderEvents(schemaPath()));
  }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
