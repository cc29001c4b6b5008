// schema.js - validate speedscope JSON files against the file-format
// schema shipped in the npm package speedscope (draft-07, with ajv).
//
//	node schema.js FILE.json...
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const pkg = path.dirname(require.resolve('speedscope/package.json'));
const schemaPath = path.join(pkg, 'dist', 'release', 'file-format-schema.json');
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const version = require('speedscope/package.json').version;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
let bad = 0;
for (const file of process.argv.slice(2)) {
	const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
	if (validate(doc)) {
		console.log(`${file}: valid (speedscope ${version} schema)`);
	} else {
		bad++;
		console.log(`${file}: invalid`);
		for (const e of validate.errors.slice(0, 10))
			console.log(`  ${e.instancePath} ${e.message}`);
	}
}
process.exit(bad ? 1 : 0);
