// The CPython C API for the Swift extension, through the limited API of Python 3.11 (the
// wheel is tagged abi3 and loads into 3.11 and later). Python.h comes from the interpreter's
// include folder, passed by setup.py as `-Xcc -I$(python3-config --includes)`.
#ifndef KEYEDARCHIVE_CPYTHON_SHIM_H
#define KEYEDARCHIVE_CPYTHON_SHIM_H

#define PY_SSIZE_T_CLEAN
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>

// The signature of a METH_FASTCALL function.
typedef PyObject *_Nullable (*KAFastFunction)(
    PyObject *_Nullable module, PyObject *_Nullable const *_Nullable args, Py_ssize_t nargs);

// Creates the module `keyedarchive._keyedarchive` with `count` functions.
PyObject *_Nullable ka_module_create(
    const char *_Nonnull const *_Nonnull names, const KAFastFunction _Nonnull *_Nonnull functions,
    const char *_Nonnull const *_Nonnull docs, int count);

// Reference counting (macros in the C API).
void ka_incref(PyObject *_Nonnull object);
void ka_decref(PyObject *_Nonnull object);
void ka_xdecref(PyObject *_Nullable object);

// New references to the singletons.
PyObject *_Nonnull ka_none(void);
int ka_is_none(PyObject *_Nonnull object);

// Exact and subclass type checks (macros in the C API).
int ka_is_str(PyObject *_Nonnull object);
int ka_is_bytes(PyObject *_Nonnull object);
int ka_is_bytearray(PyObject *_Nonnull object);
int ka_is_bool(PyObject *_Nonnull object);
int ka_is_int(PyObject *_Nonnull object);
int ka_is_float(PyObject *_Nonnull object);
int ka_is_dict(PyObject *_Nonnull object);
int ka_is_list(PyObject *_Nonnull object);
int ka_is_tuple(PyObject *_Nonnull object);

// The exception types.
PyObject *_Nonnull ka_exc_type_error(void);
PyObject *_Nonnull ka_exc_value_error(void);
PyObject *_Nonnull ka_exc_overflow_error(void);
PyObject *_Nonnull ka_exc_memory_error(void);
PyObject *_Nonnull ka_exc_recursion_error(void);
PyObject *_Nonnull ka_exc_os_error(void);

#endif
