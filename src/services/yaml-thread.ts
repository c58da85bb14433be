// A worker thread of the catalogue load (parse-yaml.ts): parses the YAML of the files it is given
// and posts back each file's documents (or its error), as parseYamlDocuments gives them.
import { parentPort, workerData } from "node:worker_threads";
import type { CatalogFile } from "../catalog/types.js";
import { parseYamlDocuments } from "../catalog/yaml-documents.js";

const files = workerData as CatalogFile[];
parentPort!.postMessage(files.map((file) => [file.file, parseYamlDocuments(file)]));
