;; E6's forward kernels in WebAssembly with 128-bit SIMD (f32x4), written by hand. widgets/e6/wasm.mjs lays the
;; model out in this module's memory and calls these kernels layer by layer; generator/pages/assemble_wasm.mjs
;; assembles this text at build time (wabt, pinned in package.json) twice: with the linear layers' kernels of
;; matmul.wat into assets/c13/e6/forward.wasm, and with those of matmul_relaxed.wat (fused multiply-adds) into
;; forward-relaxed.wasm, each in place of the `;; @kernels` line below.
;;
;; Every pointer is a byte offset into memory; every float is a float32 and every sum runs in float32 lanes.
;; A linear layer's weight is "packed" by wasm.mjs: the output rows in blocks of 8, each as its two halves of 4 rows
;; one after the other, and in a half, the inputs in groups of 4, the 4 rows' 4 values after one another (4
;; vectors, 64 bytes). A kernel walks one block, and each weight vector it loads serves several input rows (the
;; k + 1 positions of a verification): 4 rows x 2 outputs (half of each group of a half), 2 rows x 4 outputs (a
;; half) or 1 row x 8 outputs (both halves side by side), at most 8 accumulators. So every kernel reads whole
;; cache lines in the order they lie in (kernels that took every other cache line of a block got their weights from
;; memory more slowly). The 4 lanes of an accumulator are summed at the end, in one call that takes all of a
;; kernel's accumulators: V8 stores a value that must outlive a call into its stack slot where the value is
;; computed, in every iteration of a loop (as Node 20's optimizing compiler shows its code). That compiler also
;; loads all the vectors of an iteration before its first multiply-add and allocates 15 xmm registers (xmm15 is
;; its scratch): with the relaxed kernels, 2 rows x 4 and 4 rows x 2 outputs keep everything in registers, and
;; 1 row x 8 outputs (8 accumulators, 8 weights and the input: 17 values) keeps an accumulator and a weight on the
;; stack, yet ran faster in Chromium than 4 accumulators did; with the standard ones, the 8 products of an
;; iteration all come before the 8 additions, and each kernel passes 2 values through the stack in every iteration.
(module
  (import "env" "memory" (memory 1))

  ;; ------------------------------------------------------------------------------------ exp, erf and GELU

  ;; e^x, lane by lane, to about 2 float32 ulps: x = n ln2 + r (ln2 in two parts, so n ln2 is exact), e^r by its
  ;; Taylor series to r^7 (|r| <= ln2 / 2), times 2^n built in the exponent bits. x is clamped to [-80, 88]
  ;; (no subnormal result: they are slow on x64, and e^-80 = 1.8e-35 is 0 wherever it is used here).
  (func $exp (param $x v128) (result v128)
    (local $n v128) (local $r v128) (local $p v128)
    (local.set $x (f32x4.max (local.get $x) (v128.const f32x4 -80 -80 -80 -80)))
    (local.set $x (f32x4.min (local.get $x) (v128.const f32x4 88 88 88 88)))
    (local.set $n (f32x4.nearest (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504)))))
    (local.set $r (f32x4.sub (local.get $x) (f32x4.mul (local.get $n) (f32x4.splat (f32.const 0.693359375)))))
    (local.set $r (f32x4.sub (local.get $r) (f32x4.mul (local.get $n) (f32x4.splat (f32.const -2.12194440e-4)))))
    (local.set $p (f32x4.splat (f32.const 1.98412698e-4))) ;; 1/7!
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.38888889e-3)))) ;; 1/6!
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 8.33333333e-3)))) ;; 1/5!
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 4.16666667e-2)))) ;; 1/4!
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 0.166666667)))) ;; 1/3!
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 0.5))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1))))
    ;; 2^n: the biased exponent n + 127 shifted into place (n >= -126 after the clamp: a normal number)
    (f32x4.mul (local.get $p)
      (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $n)) (v128.const i32x4 127 127 127 127))
                 (i32.const 23))))

  ;; erf(a) for 0 <= a < 1: a times the Taylor series of erf(a)/a in a^2 to its 10th term,
  ;; 2/sqrt(pi) (-1)^n / (n! (2n + 1)); relative error below 2e-7.
  (func $erf_small (param $a v128) (result v128)
    (local $z v128) (local $p v128)
    (local.set $z (f32x4.mul (local.get $a) (local.get $a)))
    (local.set $p (f32x4.splat (f32.const -1.63658447e-07)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const 1.64621144e-06))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const -1.49256504e-05))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const 1.20553330e-04))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const -8.54832702e-04))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const 5.22397763e-03))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const -2.68661706e-02))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const 0.112837917))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const -0.376126389))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $z)) (f32x4.splat (f32.const 1.12837917))))
    (f32x4.mul (local.get $a) (local.get $p)))

  ;; erfc(a) for a >= 1: t e^(P(t) - a^2) with t = 1 / (1 + a/2) and P of degree 6, fitted (least squares on
  ;; a in [1, 10]) to log(erfc(a) e^(a^2) / t); relative error about 1.5e-6 up to a = 4, where erfc(4) = 1.5e-8.
  (func $erfc_big (param $a v128) (result v128)
    (local $t v128) (local $p v128)
    (local.set $t (f32x4.div (v128.const f32x4 1 1 1 1)
      (f32x4.add (v128.const f32x4 1 1 1 1) (f32x4.mul (local.get $a) (v128.const f32x4 0.5 0.5 0.5 0.5)))))
    (local.set $p (f32x4.splat (f32.const 0.244484708)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const -0.442586154))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const 0.0273195915))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const 0.0649034083))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const 0.375099570))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const 1.00032091))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const -1.26553917))))
    (f32x4.mul (local.get $t)
      (call $exp (f32x4.sub (local.get $p) (f32x4.mul (local.get $a) (local.get $a))))))

  ;; erf(x), lane by lane
  (func $erf4 (param $x v128) (result v128)
    (local $a v128) (local $r v128)
    (local.set $a (f32x4.abs (local.get $x)))
    (local.set $r (v128.bitselect
      (call $erf_small (local.get $a))
      (f32x4.sub (v128.const f32x4 1 1 1 1) (call $erfc_big (local.get $a)))
      (f32x4.lt (local.get $a) (v128.const f32x4 1 1 1 1))))
    ;; the sign of x onto |erf|
    (v128.or (v128.and (local.get $x) (v128.const i32x4 0x80000000 0x80000000 0x80000000 0x80000000))
             (local.get $r)))

  ;; GELU, the exact form: x (1 + erf(x / sqrt 2)) / 2. For x < 0 with |x / sqrt 2| >= 1, 1 + erf is erfc itself
  ;; (no cancellation), so that GELU keeps its relative accuracy out in the tail.
  (func $gelu4 (param $x v128) (result v128)
    (local $a v128) (local $small v128) (local $c v128) (local $e v128) (local $one_plus v128)
    (local.set $a (f32x4.mul (f32x4.abs (local.get $x))
      (v128.const f32x4 0.707106781 0.707106781 0.707106781 0.707106781)))
    (local.set $small (f32x4.lt (local.get $a) (v128.const f32x4 1 1 1 1)))
    (local.set $e (call $erf_small (local.get $a)))
    (local.set $c (call $erfc_big (local.get $a)))
    (local.set $one_plus (v128.bitselect
      ;; x >= 0: 1 + erf(a)
      (f32x4.add (v128.const f32x4 1 1 1 1)
        (v128.bitselect (local.get $e) (f32x4.sub (v128.const f32x4 1 1 1 1) (local.get $c)) (local.get $small)))
      ;; x < 0: 1 - erf(a), that is erfc(a)
      (v128.bitselect (f32x4.sub (v128.const f32x4 1 1 1 1) (local.get $e)) (local.get $c) (local.get $small))
      (f32x4.ge (local.get $x) (v128.const f32x4 0 0 0 0))))
    (f32x4.mul (f32x4.mul (local.get $x) (v128.const f32x4 0.5 0.5 0.5 0.5)) (local.get $one_plus)))

  ;; erf in place over n floats at p (n a multiple of 4): for the tests
  (func (export "erf") (param $p i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (v128.store (local.get $p) (call $erf4 (v128.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $next))))

  ;; GELU in place over n floats at p (n a multiple of 4)
  (func (export "gelu") (param $p i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (v128.store (local.get $p) (call $gelu4 (v128.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $next))))

  ;; ------------------------------------------------------------------------------------------ small helpers

  ;; the sum of the 4 lanes of each of a, b, c, d, as the 4 lanes of one vector
  (func $hsum4 (param $a v128) (param $b v128) (param $c v128) (param $d v128) (result v128)
    (local $ab v128) (local $cd v128)
    ;; (a0 + a2, b0 + b2, a1 + a3, b1 + b3) and the same of c, d
    (local.set $ab (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a) (local.get $b))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a) (local.get $b))))
    (local.set $cd (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $c) (local.get $d))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $c) (local.get $d))))
    (f32x4.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $ab) (local.get $cd))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $ab) (local.get $cd))))

  ;; the sum of the 4 lanes of v
  (func $hsum (param $x v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $x)) (f32x4.extract_lane 1 (local.get $x)))
      (f32.add (f32x4.extract_lane 2 (local.get $x)) (f32x4.extract_lane 3 (local.get $x)))))

  ;; 4 outputs at p: stored, or added to what is there (the residual stream: x + proj(y))
  (func $put4 (param $p i32) (param $v v128) (param $add i32)
    (if (local.get $add) (then (local.set $v (f32x4.add (local.get $v) (v128.load (local.get $p))))))
    (v128.store (local.get $p) (local.get $v)))

  ;; lanes 0-1 of v to 2 outputs at p, lanes 2-3 to 2 outputs at q; stored or added
  (func $put2x2 (param $p i32) (param $q i32) (param $v v128) (param $add i32)
    (if (local.get $add) (then (local.set $v (f32x4.add (local.get $v)
      (v128.load64_lane 1 (local.get $q) (v128.load64_zero (local.get $p)))))))
    (v128.store64_lane 0 (local.get $p) (local.get $v))
    (v128.store64_lane 1 (local.get $q) (local.get $v)))

  ;; the end of $mm2x4 and $mm1x8: 4 outputs at p from the lane sums of a0 … a3 and 4 outputs `row` bytes further
  ;; from those of b0 … b3 (the next input row's, or with row = 16 the next 4 outputs of the same row); stored or
  ;; added
  (func $put2x4 (param $p i32) (param $row i32) (param $a0 v128) (param $a1 v128) (param $a2 v128) (param $a3 v128)
                (param $b0 v128) (param $b1 v128) (param $b2 v128) (param $b3 v128) (param $add i32)
    (call $put4 (local.get $p) (call $hsum4 (local.get $a0) (local.get $a1) (local.get $a2) (local.get $a3))
                (local.get $add))
    (call $put4 (i32.add (local.get $p) (local.get $row))
                (call $hsum4 (local.get $b0) (local.get $b1) (local.get $b2) (local.get $b3)) (local.get $add)))

  ;; the end of $mm4x2: 4 rows x 2 outputs, row r (at p + r row) from the lane sums of r's two accumulators (a0 a1,
  ;; b0 b1, c0 c1, d0 d1); stored or added
  (func $put4x2 (param $p i32) (param $row i32) (param $a0 v128) (param $a1 v128) (param $b0 v128) (param $b1 v128)
                (param $c0 v128) (param $c1 v128) (param $d0 v128) (param $d1 v128) (param $add i32)
    (call $put2x2 (local.get $p) (i32.add (local.get $p) (local.get $row))
      (call $hsum4 (local.get $a0) (local.get $a1) (local.get $b0) (local.get $b1)) (local.get $add))
    (local.set $p (i32.add (local.get $p) (i32.shl (local.get $row) (i32.const 1))))
    (call $put2x2 (local.get $p) (i32.add (local.get $p) (local.get $row))
      (call $hsum4 (local.get $c0) (local.get $c1) (local.get $d0) (local.get $d1)) (local.get $add)))

  ;; ------------------------------------------------------------------------------------------- linear layers

  ;; @kernels: the linear layers' kernels $mm1x8, $mm2x4 and $mm4x2, put here by assemble_wasm.mjs from
  ;; matmul.wat (forward.wasm) or matmul_relaxed.wat (forward-relaxed.wasm)

  ;; out[t, o] (+)= sum_i W[o, i] x[t, i] for T rows, W packed (nOut a multiple of 8, nIn of 4); with add the
  ;; result is added to out instead of stored. One block of 8 output rows at a time (8 nIn floats: it stays in
  ;; the L1/L2 cache while every input row passes over it, so the weights come from memory once per call), and
  ;; the rows 4 at a time (each weight vector loaded once for the 4), then a pair, then a single row; 4 rows or
  ;; a pair take the block's two halves one after the other, a single row both side by side.
  (func (export "matmul") (param $out i32) (param $x i32) (param $w i32) (param $T i32) (param $nIn i32)
                          (param $nOut i32) (param $add i32)
    (local $t i32) (local $o i32) (local $row i32) (local $xs i32) (local $xr i32) (local $orow i32) (local $half i32)
    (local $j i32)
    (local.set $row (i32.shl (local.get $nOut) (i32.const 2)))  ;; bytes of one output row
    (local.set $xs (i32.shl (local.get $nIn) (i32.const 2)))    ;; bytes of one input row
    (local.set $half (i32.shl (local.get $nIn) (i32.const 4)))  ;; bytes of half a block
    (loop $block
      (local.set $t (i32.const 0))
      (local.set $xr (local.get $x))
      (local.set $orow (i32.add (local.get $out) (i32.shl (local.get $o) (i32.const 2))))
      (block $fours (loop $four
        (br_if $fours (i32.gt_u (i32.add (local.get $t) (i32.const 4)) (local.get $T)))
        (local.set $j (i32.const 0))
        (loop $pair  ;; the block's output rows 2j, 2j + 1: 32 bytes into each 64-byte group of half j / 2
          (call $mm4x2 (i32.add (local.get $orow) (i32.shl (local.get $j) (i32.const 3))) (local.get $xr)
            (i32.add (i32.add (local.get $w) (i32.mul (i32.shr_u (local.get $j) (i32.const 1)) (local.get $half)))
                     (i32.shl (i32.and (local.get $j) (i32.const 1)) (i32.const 5)))
            (local.get $nIn) (local.get $row) (local.get $add))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br_if $pair (i32.lt_u (local.get $j) (i32.const 4))))
        (local.set $t (i32.add (local.get $t) (i32.const 4)))
        (local.set $xr (i32.add (local.get $xr) (i32.shl (local.get $xs) (i32.const 2))))
        (local.set $orow (i32.add (local.get $orow) (i32.shl (local.get $row) (i32.const 2))))
        (br $four)))
      (if (i32.le_u (i32.add (local.get $t) (i32.const 2)) (local.get $T)) (then
        (call $mm2x4 (local.get $orow) (local.get $xr) (local.get $w) (local.get $nIn) (local.get $row)
          (local.get $add))
        (call $mm2x4 (i32.add (local.get $orow) (i32.const 16)) (local.get $xr)
          (i32.add (local.get $w) (local.get $half)) (local.get $nIn) (local.get $row) (local.get $add))
        (local.set $t (i32.add (local.get $t) (i32.const 2)))
        (local.set $xr (i32.add (local.get $xr) (i32.shl (local.get $xs) (i32.const 1))))
        (local.set $orow (i32.add (local.get $orow) (i32.shl (local.get $row) (i32.const 1))))))
      (if (i32.lt_u (local.get $t) (local.get $T)) (then
        (call $mm1x8 (local.get $orow) (local.get $xr) (local.get $w) (local.get $nIn) (local.get $add))))
      (local.set $w (i32.add (local.get $w) (i32.shl (local.get $half) (i32.const 1))))  ;; the next block
      (local.set $o (i32.add (local.get $o) (i32.const 8)))
      (br_if $block (i32.lt_u (local.get $o) (local.get $nOut)))))

  ;; --------------------------------------------------------------------------------------------- LayerNorm

  ;; LayerNorm without bias, eps 1e-5, of T rows of C floats (C a multiple of 4): out = (x - mean) / sqrt(var + eps) w
  (func (export "layer_norm") (param $out i32) (param $x i32) (param $w i32) (param $T i32) (param $C i32)
    (local $t i32) (local $i i32) (local $n i32) (local $acc v128) (local $d v128) (local $mean v128) (local $inv v128)
    (local.set $n (i32.shl (local.get $C) (i32.const 2)))
    (block $rows_done (loop $rows
      (br_if $rows_done (i32.ge_u (local.get $t) (local.get $T)))
      ;; the mean
      (local.set $acc (v128.const f32x4 0 0 0 0))
      (local.set $i (i32.const 0))
      (loop $sum
        (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $x) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br_if $sum (i32.lt_u (local.get $i) (local.get $n))))
      (local.set $mean (f32x4.splat (f32.div (call $hsum (local.get $acc))
                                             (f32.convert_i32_u (local.get $C)))))
      ;; the variance, around the mean
      (local.set $acc (v128.const f32x4 0 0 0 0))
      (local.set $i (i32.const 0))
      (loop $sq
        (local.set $d (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $i))) (local.get $mean)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $d) (local.get $d))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br_if $sq (i32.lt_u (local.get $i) (local.get $n))))
      (local.set $inv (f32x4.splat (f32.div (f32.const 1) (f32.sqrt (f32.add
        (f32.div (call $hsum (local.get $acc)) (f32.convert_i32_u (local.get $C)))
        (f32.const 1e-5))))))
      ;; normalise and scale
      (local.set $i (i32.const 0))
      (loop $norm
        (v128.store (i32.add (local.get $out) (local.get $i))
          (f32x4.mul (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $i))) (local.get $mean))
                                (local.get $inv))
                     (v128.load (i32.add (local.get $w) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br_if $norm (i32.lt_u (local.get $i) (local.get $n))))
      (local.set $x (i32.add (local.get $x) (local.get $n)))
      (local.set $out (i32.add (local.get $out) (local.get $n)))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br $rows))))

  ;; ------------------------------------------------------------------------------------------------ attention

  ;; the dot product of n floats at a and b (n a multiple of 4)
  (func $dot (param $a i32) (param $b i32) (param $n i32) (result f32)
    (local $end i32) (local $acc v128)
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 2))))
    (loop $next
      (local.set $acc (f32x4.add (local.get $acc)
        (f32x4.mul (v128.load (local.get $a)) (v128.load (local.get $b)))))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (local.set $b (i32.add (local.get $b) (i32.const 16)))
      (br_if $next (i32.lt_u (local.get $a) (local.get $end))))
    (call $hsum (local.get $acc)))

  ;; q . k_j for the 4 positions j … j + 3 (k the first, rows `stride` bytes apart; n floats, a multiple of 4),
  ;; as the 4 lanes of one vector: each q vector loaded once for the 4
  (func $dot4 (param $q i32) (param $k i32) (param $n i32) (param $stride i32) (result v128)
    (local $end i32) (local $qv v128) (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local $s2 i32) (local $s3 i32)
    (local.set $end (i32.add (local.get $q) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $s2 (i32.shl (local.get $stride) (i32.const 1)))
    (local.set $s3 (i32.add (local.get $s2) (local.get $stride)))
    (loop $next
      (local.set $qv (v128.load (local.get $q)))
      (local.set $a (f32x4.add (local.get $a) (f32x4.mul (local.get $qv) (v128.load (local.get $k)))))
      (local.set $b (f32x4.add (local.get $b)
        (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $k) (local.get $stride))))))
      (local.set $c (f32x4.add (local.get $c)
        (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $k) (local.get $s2))))))
      (local.set $d (f32x4.add (local.get $d)
        (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $k) (local.get $s3))))))
      (local.set $q (i32.add (local.get $q) (i32.const 16)))
      (local.set $k (i32.add (local.get $k) (i32.const 16)))
      (br_if $next (i32.lt_u (local.get $q) (local.get $end))))
    (call $hsum4 (local.get $a) (local.get $b) (local.get $c) (local.get $d)))

  ;; One head of one new row: scores[j] = q . k_j / sqrt(hs) over the `seen` positions, softmax, and
  ;; y = sum_j p_j v_j. q, k and v point at the head's first float (k and v of position 0); C is the row width.
  (func $head (param $y i32) (param $q i32) (param $k i32) (param $v i32) (param $seen i32) (param $hs i32)
              (param $C i32) (param $scores i32)
    (local $j i32) (local $s f32) (local $max f32) (local $sum f32) (local $stride i32) (local $d i32)
    (local $p i32) (local $scale f32) (local $s4 v128) (local $max4 v128) (local $e v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $stride (i32.shl (local.get $C) (i32.const 2)))
    (local.set $scale (f32.div (f32.const 1) (f32.sqrt (f32.convert_i32_u (local.get $hs)))))
    ;; the scores of 4 positions at a time, then of the rest one by one, and their maximum
    (local.set $max4 (v128.const f32x4 -inf -inf -inf -inf))
    (block $fours_done (loop $fours
      (br_if $fours_done (i32.gt_u (i32.add (local.get $j) (i32.const 4)) (local.get $seen)))
      (local.set $s4 (f32x4.mul (f32x4.splat (local.get $scale))
        (call $dot4 (local.get $q) (i32.add (local.get $k) (i32.mul (local.get $j) (local.get $stride)))
                    (local.get $hs) (local.get $stride))))
      (v128.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2))) (local.get $s4))
      (local.set $max4 (f32x4.max (local.get $max4) (local.get $s4)))
      (local.set $j (i32.add (local.get $j) (i32.const 4)))
      (br $fours)))
    (local.set $max (f32.max (f32.max (f32x4.extract_lane 0 (local.get $max4)) (f32x4.extract_lane 1 (local.get $max4)))
                             (f32.max (f32x4.extract_lane 2 (local.get $max4)) (f32x4.extract_lane 3 (local.get $max4)))))
    (block $ones_done (loop $ones
      (br_if $ones_done (i32.ge_u (local.get $j) (local.get $seen)))
      (local.set $s (f32.mul (call $dot (local.get $q) (i32.add (local.get $k) (i32.mul (local.get $j) (local.get $stride)))
                                        (local.get $hs))
                             (local.get $scale)))
      (f32.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2))) (local.get $s))
      (local.set $max (f32.max (local.get $max) (local.get $s)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $ones)))
    ;; e^(s - max), 4 at a time (the lanes past `seen` are computed and never read), and their sum
    (local.set $p (local.get $scores))
    (local.set $j (i32.add (local.get $scores) (i32.shl (local.get $seen) (i32.const 2))))
    (loop $exps
      (v128.store (local.get $p)
        (call $exp (f32x4.sub (v128.load (local.get $p)) (f32x4.splat (local.get $max)))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br_if $exps (i32.lt_u (local.get $p) (local.get $j))))
    (local.set $sum (f32.const 0))
    (local.set $p (local.get $scores))
    (loop $total
      (local.set $sum (f32.add (local.get $sum) (f32.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br_if $total (i32.lt_u (local.get $p) (local.get $j))))
    ;; y[d..d+16] = sum_j e_j v_j[d..d+16] / sum, 16 floats of the head at a time (each e_j loaded once for them)
    (block $wide_done (loop $wide
      (br_if $wide_done (i32.gt_u (i32.add (local.get $d) (i32.const 16)) (local.get $hs)))
      (local.set $a0 (v128.const f32x4 0 0 0 0))
      (local.set $a1 (v128.const f32x4 0 0 0 0))
      (local.set $a2 (v128.const f32x4 0 0 0 0))
      (local.set $a3 (v128.const f32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (local.set $p (i32.add (local.get $v) (i32.shl (local.get $d) (i32.const 2))))
      (loop $pos
        (local.set $e (v128.load32_splat (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2)))))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $e) (v128.load offset=0 (local.get $p)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $e) (v128.load offset=16 (local.get $p)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $e) (v128.load offset=32 (local.get $p)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $e) (v128.load offset=48 (local.get $p)))))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $pos (i32.lt_u (local.get $j) (local.get $seen))))
      (local.set $p (i32.add (local.get $y) (i32.shl (local.get $d) (i32.const 2))))
      (v128.store offset=0 (local.get $p) (f32x4.div (local.get $a0) (f32x4.splat (local.get $sum))))
      (v128.store offset=16 (local.get $p) (f32x4.div (local.get $a1) (f32x4.splat (local.get $sum))))
      (v128.store offset=32 (local.get $p) (f32x4.div (local.get $a2) (f32x4.splat (local.get $sum))))
      (v128.store offset=48 (local.get $p) (f32x4.div (local.get $a3) (f32x4.splat (local.get $sum))))
      (local.set $d (i32.add (local.get $d) (i32.const 16)))
      (br $wide)))
    ;; the rest (head sizes not a multiple of 16), 4 floats at a time
    (block $rest_done (loop $rest
      (br_if $rest_done (i32.ge_u (local.get $d) (local.get $hs)))
      (local.set $a0 (v128.const f32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (local.set $p (i32.add (local.get $v) (i32.shl (local.get $d) (i32.const 2))))
      (loop $pos
        (local.set $a0 (f32x4.add (local.get $a0)
          (f32x4.mul (v128.load32_splat (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2))))
                     (v128.load (local.get $p)))))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $pos (i32.lt_u (local.get $j) (local.get $seen))))
      (v128.store (i32.add (local.get $y) (i32.shl (local.get $d) (i32.const 2)))
        (f32x4.div (local.get $a0) (f32x4.splat (local.get $sum))))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (br $rest))))

  ;; Causal self-attention of T new rows after `past` cached positions. qkv holds each new row's q, k, v (C floats
  ;; each); k and v go into the cache K, V (rows of C floats) first, then row t attends to positions 0 … past + t.
  (func (export "attend") (param $y i32) (param $qkv i32) (param $K i32) (param $V i32) (param $past i32)
                          (param $T i32) (param $C i32) (param $H i32) (param $scores i32)
    (local $t i32) (local $h i32) (local $row i32) (local $src i32) (local $dst i32) (local $hs i32) (local $off i32)
    (local.set $row (i32.shl (local.get $C) (i32.const 2)))
    (local.set $hs (i32.div_u (local.get $C) (local.get $H)))
    (loop $copy
      (local.set $src (i32.add (local.get $qkv) (i32.mul (local.get $t) (i32.mul (local.get $row) (i32.const 3)))))
      (local.set $dst (i32.mul (i32.add (local.get $past) (local.get $t)) (local.get $row)))
      (memory.copy (i32.add (local.get $K) (local.get $dst)) (i32.add (local.get $src) (local.get $row)) (local.get $row))
      (memory.copy (i32.add (local.get $V) (local.get $dst))
                   (i32.add (local.get $src) (i32.shl (local.get $row) (i32.const 1))) (local.get $row))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br_if $copy (i32.lt_u (local.get $t) (local.get $T))))
    (local.set $t (i32.const 0))
    (loop $rows
      (local.set $h (i32.const 0))
      (loop $heads
        (local.set $off (i32.shl (i32.mul (local.get $h) (local.get $hs)) (i32.const 2)))
        (call $head
          (i32.add (i32.add (local.get $y) (i32.mul (local.get $t) (local.get $row))) (local.get $off))
          (i32.add (i32.add (local.get $qkv) (i32.mul (local.get $t) (i32.mul (local.get $row) (i32.const 3))))
                   (local.get $off))
          (i32.add (local.get $K) (local.get $off)) (i32.add (local.get $V) (local.get $off))
          (i32.add (i32.add (local.get $past) (local.get $t)) (i32.const 1)) (local.get $hs) (local.get $C)
          (local.get $scores))
        (local.set $h (i32.add (local.get $h) (i32.const 1)))
        (br_if $heads (i32.lt_u (local.get $h) (local.get $H))))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br_if $rows (i32.lt_u (local.get $t) (local.get $T)))))
)
