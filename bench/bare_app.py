"""A bare Streamlit page (a title and a line of text): what ``first_view_bench`` sets the workbench's
first view against, served the same way in the same run."""

import streamlit as st

st.title("Bare page")
st.write("Nothing else: the cost of a Streamlit page itself.")
