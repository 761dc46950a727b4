// Times ONNX Runtime's session.run on one model: the baseline of
// bench/run_model_bench.sh. Prints one JSON line:
//   {"model", "ort_version", "threads", "warmup", "iterations",
//    "latency_ms": {"min", "p50", "p90", "mean", "max"}}
// With --output-dir it also writes each output of the first run as
// DIR/<output name>.npy, to compare with mlfkit's.
//
// usage: node time_session.js MODEL.onnx [--threads T] [--iterations N] [--warmup W]
//                             [--input FILE.npy] [--output-dir DIR]
// onnxruntime-node is found through NODE_PATH (bench/ort/install_ort.sh --print-dir).
'use strict';
const fs = require('fs');
const path = require('path');

const kUsage = 'usage: node time_session.js MODEL.onnx [--threads T] [--iterations N] ' +
    '[--warmup W] [--input FILE.npy] [--output-dir DIR]';

function fail(message) {
  process.stderr.write(`time_session: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = {threads: 1, iterations: 100, warmup: 10, input: null, outputDir: null};
  const counts = {'--threads': 'threads', '--iterations': 'iterations', '--warmup': 'warmup'};
  const positionals = [];
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    if (flag === '-h' || flag === '--help') {
      process.stdout.write(kUsage + '\n');
      process.exit(0);
    }
    if (!flag.startsWith('--')) {
      positionals.push(flag);
      continue;
    }
    if (i + 1 >= argv.length) fail(`${flag} needs a value\n${kUsage}`);
    const value = argv[++i];
    if (flag in counts) {
      if (!/^[0-9]+$/.test(value)) fail(`${flag} must be a whole number, got '${value}'`);
      options[counts[flag]] = Number(value);
    } else if (flag === '--input') {
      options.input = value;
    } else if (flag === '--output-dir') {
      options.outputDir = value;
    } else {
      fail(`unknown flag ${flag}\n${kUsage}`);
    }
  }
  if (positionals.length !== 1) fail(`expected one model file\n${kUsage}`);
  if (options.threads < 1) fail('--threads must be at least 1');
  if (options.iterations < 1) fail('--iterations must be at least 1');
  options.model = positionals[0];
  return options;
}

// NumPy .npy (format 1.0), little-endian float32, C order: what the benchmark
// writes as input and what `mlf run --output-dir` writes.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') fail(`${file}: not a .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', headerStart, headerStart + headerLength);
  if (!/'descr': *'<f4'/.test(header)) fail(`${file}: only little-endian float32 is supported`);
  if (/'fortran_order': *True/.test(header)) fail(`${file}: Fortran order is not supported`);
  const shapeText = /'shape': *\(([^)]*)\)/.exec(header);
  if (!shapeText) fail(`${file}: no shape in the header`);
  const shape = shapeText[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const start = headerStart + headerLength;
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start,
                                                   bytes.byteOffset + bytes.length));
  return {shape, data};
}

function writeNpy(file, shape, data) {
  const shapeText = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shapeText}), }`;
  // Magic, version and length take 10 bytes; the header ends in '\n' and the
  // whole preamble is a multiple of 64 bytes.
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const preamble = Buffer.alloc(10);
  preamble.write('\x93NUMPY', 0, 'latin1');
  preamble[6] = 1;
  preamble[7] = 0;
  preamble.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([preamble, Buffer.from(header, 'latin1'),
                                        Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

// Reproducible values in [-1, 1) when no input file is given (timing only).
function fillRandom(data) {
  let state = 12345;
  for (let i = 0; i < data.length; ++i) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    data[i] = state / 2147483648 - 1;
  }
}

function percentile(sorted, p) {
  const index = Math.round((p / 100) * (sorted.length - 1));
  return sorted[Math.min(index, sorted.length - 1)];
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    fail('cannot load onnxruntime-node (run bench/ort/install_ort.sh and set NODE_PATH to ' +
         `what its --print-dir prints): ${e.message}`);
  }
  const session = await ort.InferenceSession.create(options.model, {
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  if (session.inputNames.length !== 1) fail(`${options.model}: expected one input`);
  let input;
  if (options.input) {
    input = readNpy(options.input);
  } else {
    const meta = session.inputMetadata[0];
    if (!meta || !meta.shape || meta.shape.some((d) => typeof d !== 'number')) {
      fail(`${options.model}: input shape is not static; give --input`);
    }
    input = {shape: meta.shape, data: new Float32Array(meta.shape.reduce((a, b) => a * b, 1))};
    fillRandom(input.data);
  }
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', input.data, input.shape)};

  const first = await session.run(feeds);
  if (options.outputDir) {
    fs.mkdirSync(options.outputDir, {recursive: true});
    for (const name of session.outputNames) {
      const tensor = first[name];
      if (tensor.type !== 'float32') fail(`output ${name}: only float32 is written`);
      writeNpy(path.join(options.outputDir, `${name}.npy`), tensor.dims, tensor.data);
    }
  }
  for (let i = 1; i < options.warmup; ++i) await session.run(feeds);
  const latencies = [];
  for (let i = 0; i < options.iterations; ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  latencies.sort((a, b) => a - b);
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  let version = null;
  try {
    version = require('onnxruntime-node/package.json').version;
  } catch (e) {
    version = ort.env && ort.env.versions ? ort.env.versions.node : null;
  }
  process.stdout.write(JSON.stringify({
    model: options.model,
    ort_version: version,
    threads: options.threads,
    warmup: options.warmup,
    iterations: options.iterations,
    latency_ms: {
      min: latencies[0],
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      mean,
      max: latencies[latencies.length - 1],
    },
  }) + '\n');
}

main().catch((e) => fail(e.message));
