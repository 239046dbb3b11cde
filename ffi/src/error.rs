//! Status codes, the per-thread last error, and the checks every call makes on the pointers
//! C hands in, handles included: the registry of live handles.

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// What a call returned. `DEMOKIT_STATUS_OK` (0) is success; for every other value
/// `demokit_last_error()` says what went wrong.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemokitStatus {
    /// Success.
    Ok = 0,
    /// A pointer argument that must not be null was null.
    NullPointer = 1,
    /// A string argument is not valid UTF-8.
    InvalidUtf8 = 2,
    /// An argument is out of range or malformed, or would make a record demokit's readers
    /// refuse: a client id outside 0..128 (-3..128 for a console command), a record longer
    /// than 1 MiB, a header longer than 4 MiB, an unknown header key, a string with a NUL
    /// where none may be, a snapshot that does not parse.
    InvalidArgument = 3,
    /// The call is not allowed here: out of the order the tick loop requires, or after
    /// `finish`.
    OutOfOrder = 4,
    /// Opening, writing or flushing the file (or the write callback) failed; the recorder
    /// refuses every later call and the file keeps what was complete before.
    Io = 5,
    /// A bug in demokit (a panic caught at the boundary); please report it.
    Internal = 6,
    /// The handle is not live: it was closed or freed already (or demokit never returned
    /// it). Nothing behind it was touched.
    ClosedHandle = 7,
}

/// A failed call: its status and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: DemokitStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: DemokitStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message with a NUL in it (from an argument echoed back) is cut there.
    let cut = message.split('\0').next().unwrap_or_default();
    let text = CString::new(cut).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs a call's body: clears the last error, turns a failure into its status and message,
/// and a panic (in builds that unwind) into [`DemokitStatus::Internal`].
pub(crate) fn guard(name: &str, body: impl FnOnce() -> Result<(), Failure>) -> DemokitStatus {
    set_last_error("");
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => DemokitStatus::Ok,
        Ok(Err(failure)) => {
            set_last_error(&format!("{name}: {}", failure.message));
            failure.status
        }
        Err(_) => {
            set_last_error(&format!("{name}: internal error (panic); please report it"));
            DemokitStatus::Internal
        }
    }
}

/// The message of the last failed call on this thread, or an empty string if the last
/// call succeeded. The pointer stays valid until the next demokit call on this thread;
/// never null.
#[unsafe(no_mangle)]
pub extern "C" fn demokit_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The name of a status (`"ok"`, `"null pointer"`, ...), a static string; never null.
#[unsafe(no_mangle)]
pub extern "C" fn demokit_status_name(status: i32) -> *const c_char {
    // An int, not the enum: C may pass any value, and an enum value Rust does not know
    // would be undefined behaviour.
    let name: &'static CStr = match status {
        0 => c"ok",
        1 => c"null pointer",
        2 => c"invalid UTF-8",
        3 => c"invalid argument",
        4 => c"call out of order",
        5 => c"I/O error",
        6 => c"internal error",
        7 => c"closed handle",
        _ => c"unknown status",
    };
    name.as_ptr()
}

/// The error for a call on a recording that `finish` has ended.
pub(crate) fn finished() -> Failure {
    Failure::new(DemokitStatus::OutOfOrder, "the recording is finished")
}

/// The recorder a handle holds until `finish` takes it.
pub(crate) fn live<R>(slot: &mut Option<R>) -> Result<&mut R, Failure> {
    slot.as_mut().ok_or_else(finished)
}

/// Checks that `ptr` is not null.
pub(crate) fn non_null<T>(ptr: *const T, what: &str) -> Result<*const T, Failure> {
    if ptr.is_null() {
        Err(Failure::new(
            DemokitStatus::NullPointer,
            format!("{what} is null"),
        ))
    } else {
        Ok(ptr)
    }
}

/// The NUL-terminated UTF-8 string at `ptr`.
///
/// # Safety
/// `ptr` is null (refused) or points to a NUL-terminated string that lives and does not
/// change for `'a`.
pub(crate) unsafe fn str_arg<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    let ptr = non_null(ptr, what)?;
    // SAFETY: non-null, and NUL-terminated and alive for 'a by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(ptr) };
    bytes.to_str().map_err(|e| {
        Failure::new(
            DemokitStatus::InvalidUtf8,
            format!("{what} is not valid UTF-8 ({e})"),
        )
    })
}

/// Like [`str_arg`], but null means "not given".
///
/// # Safety
/// As for [`str_arg`].
pub(crate) unsafe fn opt_str_arg<'a>(
    ptr: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        Ok(None)
    } else {
        // SAFETY: as the caller promised.
        unsafe { str_arg(ptr, what) }.map(Some)
    }
}

/// The `len` elements at `ptr`; a null `ptr` is allowed only for `len` 0.
///
/// # Safety
/// `ptr` is null or points to `len` initialized elements that live and do not change
/// for `'a`.
pub(crate) unsafe fn slice_arg<'a, T>(
    ptr: *const T,
    len: usize,
    what: &str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    let ptr = non_null(ptr, what)?;
    if len > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(Failure::new(
            DemokitStatus::InvalidArgument,
            format!("{what}: length {len} is impossible"),
        ));
    }
    // SAFETY: non-null, `len` elements by the caller's contract, size checked above.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

// ---- handles ----
//
// A handle is a `Box` handed to C as a raw pointer. C code keeps pointers after closing
// them, closes twice, frees twice; dereferencing such a pointer is undefined behaviour that
// no check on the memory behind it can catch. So every handle demokit returns is entered
// here, by address and type, until it is closed or freed, and every call looks its handle
// up before touching it: a pointer not in the set is refused without being dereferenced.
// Removing it is what allows the free, under the lock, so a handle is freed at most once.
//
// What the set cannot tell: an address the allocator gave to a later handle of the same
// type is live again, so a stale pointer to it names the new handle. And the lock covers
// the lookup, not the call: two calls on one handle at the same time (from two threads, or
// from inside its own write callback) alias it, as the header says.

/// The live handles: address and type of each `Box` handed out and not yet freed.
static LIVE: Mutex<BTreeSet<(usize, TypeId)>> = Mutex::new(BTreeSet::new());

/// The set of live handles, locked.
fn live_handles() -> MutexGuard<'static, BTreeSet<(usize, TypeId)>> {
    // Nothing that holds the lock can panic (lookups, inserts and removals of pairs), so
    // the lock is never poisoned; were it, the set would still be whole.
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The key of a handle in [`LIVE`]: its address and its type, so that a handle of one kind
/// passed for another is refused too.
fn key<T: 'static>(handle: *const T) -> (usize, TypeId) {
    (handle as usize, TypeId::of::<T>())
}

/// The error for a pointer that is not a live handle.
fn not_live(what: &str) -> Failure {
    Failure::new(
        DemokitStatus::ClosedHandle,
        format!(
            "{what} is not a live handle: it was closed or freed already, or demokit never returned it"
        ),
    )
}

/// Checks that `handle` is not null and is a live handle of type `T`.
fn check_live<T: 'static>(handle: *const T, what: &str) -> Result<(), Failure> {
    non_null(handle, what)?;
    if live_handles().contains(&key(handle)) {
        Ok(())
    } else {
        Err(not_live(what))
    }
}

/// The object behind a handle. Null, and any pointer that is not a live handle of this
/// type, is refused without being dereferenced.
///
/// # Safety
/// No other call uses the handle while the returned reference lives (no other thread, no
/// callback of this call).
pub(crate) unsafe fn handle_arg<'a, T: 'static>(
    handle: *mut T,
    what: &str,
) -> Result<&'a mut T, Failure> {
    check_live(handle, what)?;
    // SAFETY: live, so a Box<T> pointer from `put_handle` not freed since; used by this
    // call alone by the caller's contract.
    Ok(unsafe { &mut *handle })
}

/// [`handle_arg`] for a handle the call only reads.
///
/// # Safety
/// As for [`handle_arg`]: nothing changes the handle while the reference lives.
pub(crate) unsafe fn handle_ref<'a, T: 'static>(
    handle: *const T,
    what: &str,
) -> Result<&'a T, Failure> {
    check_live(handle, what)?;
    // SAFETY: as in `handle_arg`.
    Ok(unsafe { &*handle })
}

/// Stores `value` in `*out` as a new live handle.
///
/// # Safety
/// `out` is non-null (checked by the caller) and valid for a write.
pub(crate) unsafe fn put_handle<T: 'static>(out: *mut *mut T, value: T) {
    let handle = Box::into_raw(Box::new(value));
    live_handles().insert(key(handle));
    // SAFETY: as the caller promised.
    unsafe { *out = handle };
}

/// Takes back the object behind a handle, which is no longer live: `None` for null, an
/// error (and nothing touched) for a pointer that is not a live handle of this type, so
/// that closing twice frees once.
///
/// # Safety
/// No other call is using the handle (no other thread, no callback of this call).
pub(crate) unsafe fn take_handle<T: 'static>(
    handle: *mut T,
    what: &str,
) -> Result<Option<Box<T>>, Failure> {
    if handle.is_null() {
        return Ok(None);
    }
    if !live_handles().remove(&key(handle)) {
        return Err(not_live(what));
    }
    // SAFETY: it was live, so it came from Box::into_raw in `put_handle` and was not freed;
    // this call removed it from the set, so no other call can take it again.
    Ok(Some(unsafe { Box::from_raw(handle) }))
}
