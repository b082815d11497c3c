// The bytes of a one-node ONNX model, written with a minimal protobuf encoder: field numbers from
// onnx/onnx.proto (ModelProto, GraphProto, NodeProto, AttributeProto, ValueInfoProto, TypeProto,
// TensorShapeProto). Enough for Gather / GatherElements / GatherND with integer attributes, and
// no dependency on a protobuf library.

const VARINT = 0;
const BYTES = 2;

/** ONNX TensorProto.DataType codes. */
export const ELEM_TYPE = { float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, float64: 11 };

const ATTR_INT = 2; // AttributeProto.AttributeType.INT

function varint(n) {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`varint: ${n} is not a safe uint`);
  const out = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

const key = (field, wire) => varint(field * 8 + wire);
const uintField = (field, n) => [...key(field, VARINT), ...varint(n)];
const bytesField = (field, bytes) => [...key(field, BYTES), ...varint(bytes.length), ...bytes];
const strField = (field, s) => bytesField(field, [...new TextEncoder().encode(s)]);

function valueInfo(name, dtype, shape) {
  const dims = shape.flatMap((d) => bytesField(1, uintField(1, d))); // Dimension.dim_value
  const tensorType = [...uintField(1, ELEM_TYPE[dtype]), ...bytesField(2, dims)];
  const typeProto = bytesField(1, tensorType); // TypeProto.tensor_type
  return [...strField(1, name), ...bytesField(2, typeProto)];
}

function attribute(name, value) {
  // Negative values would need 10-byte two's complement varints; the bench passes axes >= 0.
  return [...strField(1, name), ...uintField(20, ATTR_INT), ...uintField(3, value)];
}

/**
 * @param {{ op: string, attrs: Record<string, number>,
 *   inputs: { name: string, dtype: string, shape: number[] }[],
 *   output: { name: string, dtype: string, shape: number[] } }} spec
 */
export function oneNodeModel({ op, attrs, inputs, output, opset = 13 }) {
  const node = [
    ...inputs.flatMap((i) => strField(1, i.name)),
    ...strField(2, output.name),
    ...strField(3, 'n0'),
    ...strField(4, op),
    ...Object.entries(attrs).flatMap(([k, v]) => bytesField(5, attribute(k, v))),
  ];
  const graph = [
    ...bytesField(1, node),
    ...strField(2, 'bench'),
    ...inputs.flatMap((i) => bytesField(11, valueInfo(i.name, i.dtype, i.shape))),
    ...bytesField(12, valueInfo(output.name, output.dtype, output.shape)),
  ];
  const opsetImport = [...strField(1, ''), ...uintField(2, opset)];
  const model = [
    ...uintField(1, 8), // ir_version 8 (ONNX 1.10+), understood by every onnxruntime since 1.10
    ...strField(2, 'tensorops-bench'),
    ...bytesField(7, graph),
    ...bytesField(8, opsetImport),
  ];
  return Uint8Array.from(model);
}
