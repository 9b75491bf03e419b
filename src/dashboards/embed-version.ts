// The version of the embed script's elements (docs/embedding.md section 4): `/embed/v<major>.<minor>.js`
// serves exactly these bytes forever (`Cache-Control: immutable`, an SRI hash in the docs), so any
// change to what src/dashboards/browser/embed-script.ts builds to is a new version: raise it here
// and in the SDK package (packages/embed/package.json `version`, whose major.minor it is: a test
// holds the two equal), and write the new hash into the docs (test/e2e/embed-sdk.test.ts says it).

/** `v<major>.<minor>` of the embed script and of the SDK package. */
export const EMBED_SCRIPT_VERSION = "v1.0";
