// What llama.cpp computes from GGUF models, for the gguf.llama test: each model is loaded by
// node-llama-cpp (llama.cpp's own loader, a split set from its first file), evaluated on the
// same tokens on the CPU with one thread, and its next-token distribution after every token
// (the softmax of the logits, every token of the vocabulary, as llama.cpp's sampler gives it
// with no sampling options) printed as JSON: {"models": [{"path", "tokens", "next": [[p0, p1,
// ...] per position]}]}, each p a float32 value printed exactly.
//
//   node logits.mjs PACKAGE_DIR TOKENS MODEL...
//
// PACKAGE_DIR is node-llama-cpp's folder (node_modules/node-llama-cpp), TOKENS the token ids,
// comma-separated. Loading takes the package's prebuilt libraries and never builds or
// downloads anything (build: "never").
import path from "node:path";
import {pathToFileURL} from "node:url";

const [packageDir, tokenList, ...models] = process.argv.slice(2);
if (packageDir === undefined || tokenList === undefined || models.length === 0) {
    console.error("usage: node logits.mjs PACKAGE_DIR TOKENS MODEL...");
    process.exit(64);
}
const {getLlama, LlamaLogLevel} = await import(
    pathToFileURL(path.join(packageDir, "dist", "index.js")).href);
const tokens = tokenList.split(",").map(Number);
const llama = await getLlama({
    gpu: false, build: "never", usePrebuiltBinaries: true, progressLogs: false,
    logLevel: LlamaLogLevel.error, maxThreads: 1,
});
const out = [];
for (const modelPath of models) {
    const model = await llama.loadModel({modelPath, gpuLayers: 0});
    const context = await model.createContext({contextSize: 64, batchSize: 64, threads: 1});
    const sequence = context.getSequence();
    const steps = await sequence.controlledEvaluate(
        tokens.map((t) => [t, {generateNext: {probabilities: true}}]));
    // Each distribution comes sorted by probability: put it in token order (a token it lacks
    // would be a null).
    const next = steps.map((step) => {
        const p = [];
        for (const [token, probability] of step.next.probabilities) {
            p[token] = probability;
        }
        return p;
    });
    out.push({path: modelPath, tokens, next});
    await context.dispose();
    await model.dispose();
}
await llama.dispose();
console.log(JSON.stringify({models: out}));
