// The part of three.js the viewer uses, bundled into one classic script
// that defines the global THREE (see README.md for the command).
export {
  BackSide, Box3, BufferAttribute, BufferGeometry, Color, DoubleSide, DynamicDrawUsage,
  Float32BufferAttribute, FrontSide, Frustum, GLSL3, Group, Line, LineSegments, Matrix4, Mesh,
  MeshBasicMaterial, PerspectiveCamera, Plane, RawShaderMaterial, Raycaster, REVISION, Scene, Sphere,
  SphereGeometry, Vector2, Vector3, WebGLRenderer,
} from 'three';
export { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
export { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
