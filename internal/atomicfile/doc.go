// Package atomicfile writes a small file so that a reader sees either the
// previous file or the complete new one, never a torn write. The report
// file (internal/report) and the plan file (internal/planview) both use it.
//
// Invariants:
//   - The new file is created as a temporary file in the target's
//     directory with mode 0600, written, fsynced, closed and renamed over
//     the target; the directory is then fsynced on a best-effort basis.
//   - On any failure the temporary file is removed and an *Error names the
//     failed step; its message never contains the path.
//   - The directory must exist: it is never created.
package atomicfile
