#include "CPythonShim.h"

#include <stdlib.h>

PyObject *ka_module_create(
    const char *const *names, const KAFastFunction *functions, const char *const *docs, int count)
{
    // Both live as long as the process: a module definition must outlive its module.
    PyMethodDef *methods = calloc((size_t)count + 1, sizeof(PyMethodDef));
    PyModuleDef *definition = calloc(1, sizeof(PyModuleDef));
    if (methods == NULL || definition == NULL) {
        free(methods);
        free(definition);
        return PyErr_NoMemory();
    }
    for (int index = 0; index < count; index++) {
        methods[index].ml_name = names[index];
        methods[index].ml_meth = (PyCFunction)(void (*)(void))functions[index];
        methods[index].ml_flags = METH_FASTCALL;
        methods[index].ml_doc = docs[index];
    }
    PyModuleDef initial = {
        PyModuleDef_HEAD_INIT,
        .m_name = "keyedarchive._keyedarchive",
        .m_doc = "The Swift KeyedArchive library for Python (use the keyedarchive package).",
        .m_size = -1,
        .m_methods = methods,
    };
    *definition = initial;
    return PyModule_Create(definition);
}

void ka_incref(PyObject *object) { Py_INCREF(object); }
void ka_decref(PyObject *object) { Py_DECREF(object); }
void ka_xdecref(PyObject *object) { Py_XDECREF(object); }

PyObject *ka_none(void) { Py_INCREF(Py_None); return Py_None; }
int ka_is_none(PyObject *object) { return object == Py_None; }

int ka_is_str(PyObject *object) { return PyUnicode_Check(object); }
int ka_is_bytes(PyObject *object) { return PyBytes_Check(object); }
int ka_is_bytearray(PyObject *object) { return PyByteArray_Check(object); }
int ka_is_bool(PyObject *object) { return PyBool_Check(object); }
int ka_is_int(PyObject *object) { return PyLong_Check(object); }
int ka_is_float(PyObject *object) { return PyFloat_Check(object); }
int ka_is_dict(PyObject *object) { return PyDict_Check(object); }
int ka_is_list(PyObject *object) { return PyList_Check(object); }
int ka_is_tuple(PyObject *object) { return PyTuple_Check(object); }

PyObject *ka_exc_type_error(void) { return PyExc_TypeError; }
PyObject *ka_exc_value_error(void) { return PyExc_ValueError; }
PyObject *ka_exc_overflow_error(void) { return PyExc_OverflowError; }
PyObject *ka_exc_memory_error(void) { return PyExc_MemoryError; }
PyObject *ka_exc_recursion_error(void) { return PyExc_RecursionError; }
PyObject *ka_exc_os_error(void) { return PyExc_OSError; }
