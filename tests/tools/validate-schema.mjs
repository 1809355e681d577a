// Validates JSON values against one schema of an OpenAPI 3.1 document with a real JSON Schema
// validator (Ajv, draft 2020-12, the dialect of OpenAPI 3.1 schemas; formats by ajv-formats).
//
//   node tests/tools/validate-schema.mjs <openapi.json> <schema name> <values.json>
//
// <values.json> is a JSON array; each item is validated against #/components/schemas/<name>.
// Prints one line per invalid item (its index, its `id` when it has one, and every error) and
// a summary. Exit status: 0 when every item is valid, 1 when one is not, 2 on bad input.
import { readFileSync } from "node:fs";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

function fail(message) {
  console.error(`validate-schema: ${message}`);
  process.exit(2);
}

const [documentPath, schemaName, valuesPath] = process.argv.slice(2);
if (!valuesPath) fail("usage: validate-schema.mjs <openapi.json> <schema name> <values.json>");

let document;
let values;
try {
  document = JSON.parse(readFileSync(documentPath, "utf8"));
  values = JSON.parse(readFileSync(valuesPath, "utf8"));
} catch (error) {
  fail(error.message);
}
const schemas = document?.components?.schemas;
if (!schemas || typeof schemas !== "object") fail(`${documentPath} has no components.schemas`);
if (!(schemaName in schemas)) fail(`${documentPath} has no schema ${schemaName}`);
if (!Array.isArray(values)) fail(`${valuesPath} is not a JSON array`);

// The document's components.schemas become the $defs of one schema, so every
// "#/components/schemas/X" reference resolves inside it and the validator never reads the rest
// of the document (paths, info ...), which is not a schema.
const PREFIX = "#/components/schemas/";
function rewriteRefs(node) {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== "object") return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") {
      if (!value.startsWith(PREFIX)) fail(`unsupported reference ${value}`);
      copy[key] = `#/$defs/${value.slice(PREFIX.length)}`;
    } else {
      copy[key] = rewriteRefs(value);
    }
  }
  return copy;
}

// Strict: an unknown keyword is an error, except OpenAPI's own annotations, which validate
// nothing (a discriminator only helps code generators; oneOf decides).
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addVocabulary(["discriminator", "example", "xml", "externalDocs"]);
let validate;
try {
  validate = ajv.compile({
    $defs: rewriteRefs(schemas),
    $ref: `#/$defs/${schemaName}`,
  });
} catch (error) {
  fail(`the schema does not compile: ${error.message}`);
}

let invalid = 0;
values.forEach((value, index) => {
  if (validate(value)) return;
  invalid += 1;
  const id = value && typeof value === "object" && "id" in value ? ` ${value.id}` : "";
  const type = value && typeof value === "object" && "type" in value ? ` (${value.type})` : "";
  const errors = validate.errors
    .map((error) => `${error.instancePath || "/"} ${error.message} [${error.schemaPath}]`)
    .join("; ");
  console.log(`invalid: item ${index}${id}${type}: ${errors}`);
});
console.log(`validate-schema: ${values.length - invalid} of ${values.length} valid against ${schemaName}`);
process.exit(invalid === 0 ? 0 : 1);
