print("typeahead")
