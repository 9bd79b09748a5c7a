;; E6's two probes of the reader's machine, for the roofline (widgets/e6/roof.mjs times them), written by hand in
;; WebAssembly with 128-bit SIMD (f32x4); generator/pages/assemble_wasm.mjs assembles this text into
;; assets/c13/e6/roof.wasm at build time, as it does forward.wat.
;;
;; read: memory bandwidth. It loads every 16 bytes of a buffer as four float32 and adds them into one of eight
;; accumulators (eight independent chains, so that the adds' latency never holds the loads back), pass after pass:
;; the time is the time to stream the buffer from wherever it lives (RAM or a cache, as the buffer's size decides).
;; madd: the multiply-add peak of one core. Twelve accumulators, each a = a × m + c lane by lane (an f32x4.mul and
;; an f32x4.add: baseline SIMD has no fused multiply-add), all independent, no load or store in the loop: enough
;; chains in flight to hide the latency of a mul followed by an add, few enough (12 + 2 constants) for the 16 xmm
;; registers of x64. One iteration is 12 × 4 lanes × 2 = 96 float operations.
;; Both return a sum of their accumulators, so that no engine can drop the work as unused.
(module
  (import "env" "memory" (memory 1))

  ;; the four lanes of v added
  (func $lanes (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; the sum of the float32 in [at, at + bytes), read `passes` times; bytes > 0 and a multiple of 128, at aligned
  ;; to 16 (roof.mjs sees to both)
  (func (export "read") (param $at i32) (param $bytes i32) (param $passes i32) (result f32)
    (local $p i32) (local $end i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $end (i32.add (local.get $at) (local.get $bytes)))
    (block $done
      (loop $pass
        (br_if $done (i32.eqz (local.get $passes)))
        (local.set $p (local.get $at))
        (loop $chunk
          (local.set $a0 (f32x4.add (local.get $a0) (v128.load offset=0 (local.get $p))))
          (local.set $a1 (f32x4.add (local.get $a1) (v128.load offset=16 (local.get $p))))
          (local.set $a2 (f32x4.add (local.get $a2) (v128.load offset=32 (local.get $p))))
          (local.set $a3 (f32x4.add (local.get $a3) (v128.load offset=48 (local.get $p))))
          (local.set $a4 (f32x4.add (local.get $a4) (v128.load offset=64 (local.get $p))))
          (local.set $a5 (f32x4.add (local.get $a5) (v128.load offset=80 (local.get $p))))
          (local.set $a6 (f32x4.add (local.get $a6) (v128.load offset=96 (local.get $p))))
          (local.set $a7 (f32x4.add (local.get $a7) (v128.load offset=112 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 128)))
          (br_if $chunk (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $passes (i32.sub (local.get $passes) (i32.const 1)))
        (br $pass)))
    (call $lanes
      (f32x4.add
        (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3)))
        (f32x4.add (f32x4.add (local.get $a4) (local.get $a5)) (f32x4.add (local.get $a6) (local.get $a7))))))

  ;; `iters` rounds of a = a × m + c on twelve f32x4 accumulators started at 0, 1, …, 11 (with 0 < m < 1 they
  ;; head for c / (1 − m) and stay normal numbers: no slow subnormals, no overflow)
  (func (export "madd") (param $iters i32) (param $m f32) (param $c f32) (result f32)
    (local $m4 v128) (local $c4 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $a4 v128) (local $a5 v128)
    (local $a6 v128) (local $a7 v128) (local $a8 v128) (local $a9 v128) (local $a10 v128) (local $a11 v128)
    (local.set $m4 (f32x4.splat (local.get $m)))
    (local.set $c4 (f32x4.splat (local.get $c)))
    (local.set $a1 (v128.const f32x4 1 1 1 1))
    (local.set $a2 (v128.const f32x4 2 2 2 2))
    (local.set $a3 (v128.const f32x4 3 3 3 3))
    (local.set $a4 (v128.const f32x4 4 4 4 4))
    (local.set $a5 (v128.const f32x4 5 5 5 5))
    (local.set $a6 (v128.const f32x4 6 6 6 6))
    (local.set $a7 (v128.const f32x4 7 7 7 7))
    (local.set $a8 (v128.const f32x4 8 8 8 8))
    (local.set $a9 (v128.const f32x4 9 9 9 9))
    (local.set $a10 (v128.const f32x4 10 10 10 10))
    (local.set $a11 (v128.const f32x4 11 11 11 11))
    (block $done
      (loop $round
        (br_if $done (i32.eqz (local.get $iters)))
        (local.set $a0 (f32x4.add (f32x4.mul (local.get $a0) (local.get $m4)) (local.get $c4)))
        (local.set $a1 (f32x4.add (f32x4.mul (local.get $a1) (local.get $m4)) (local.get $c4)))
        (local.set $a2 (f32x4.add (f32x4.mul (local.get $a2) (local.get $m4)) (local.get $c4)))
        (local.set $a3 (f32x4.add (f32x4.mul (local.get $a3) (local.get $m4)) (local.get $c4)))
        (local.set $a4 (f32x4.add (f32x4.mul (local.get $a4) (local.get $m4)) (local.get $c4)))
        (local.set $a5 (f32x4.add (f32x4.mul (local.get $a5) (local.get $m4)) (local.get $c4)))
        (local.set $a6 (f32x4.add (f32x4.mul (local.get $a6) (local.get $m4)) (local.get $c4)))
        (local.set $a7 (f32x4.add (f32x4.mul (local.get $a7) (local.get $m4)) (local.get $c4)))
        (local.set $a8 (f32x4.add (f32x4.mul (local.get $a8) (local.get $m4)) (local.get $c4)))
        (local.set $a9 (f32x4.add (f32x4.mul (local.get $a9) (local.get $m4)) (local.get $c4)))
        (local.set $a10 (f32x4.add (f32x4.mul (local.get $a10) (local.get $m4)) (local.get $c4)))
        (local.set $a11 (f32x4.add (f32x4.mul (local.get $a11) (local.get $m4)) (local.get $c4)))
        (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
        (br $round)))
    (call $lanes
      (f32x4.add
        (f32x4.add
          (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3)))
          (f32x4.add (f32x4.add (local.get $a4) (local.get $a5)) (f32x4.add (local.get $a6) (local.get $a7))))
        (f32x4.add (f32x4.add (local.get $a8) (local.get $a9)) (f32x4.add (local.get $a10) (local.get $a11))))))
)
