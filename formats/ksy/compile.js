// Compiles the .ksy specs of this folder to Python with the Kaitai Struct
// compiler's JavaScript build (npm `kaitai-struct-compiler`, which has no
// command line of its own):
//
//   NODE_PATH=DIR/node_modules node formats/ksy/compile.js OUT [SPEC.ksy...]
//
// writes OUT/<module>.py for every spec (all of this folder by default)
// and the specs they import. Exits 1 with the compiler's message when a
// spec does not compile.
"use strict";
const fs = require("fs");
const path = require("path");
const compiler = require("kaitai-struct-compiler");
const yaml = require("js-yaml");

const here = __dirname;
const [out, ...given] = process.argv.slice(2);
if (!out) {
  console.error("usage: node compile.js OUT [SPEC.ksy...]");
  process.exit(2);
}
const specs = given.length
  ? given
  : fs.readdirSync(here).filter((f) => f.endsWith(".ksy")).map((f) => path.join(here, f));

const read = (file) => yaml.load(fs.readFileSync(file, "utf8"));
const importer = {
  importYaml: (name) => Promise.resolve(read(path.join(here, name + ".ksy"))),
};

(async () => {
  fs.mkdirSync(out, { recursive: true });
  for (const spec of specs) {
    let files;
    try {
      files = await compiler.compile("python", read(spec), importer, false);
    } catch (e) {
      console.error(`${spec}: ${e && e.message ? e.message : e}`);
      process.exit(1);
    }
    for (const [name, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(out, name), text);
    }
    console.log(`${path.basename(spec)}: ${Object.keys(files).join(", ")}`);
  }
})();
